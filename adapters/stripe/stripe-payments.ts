import {
  type Checkout,
  type CheckoutRequest,
  type CheckoutState,
  type PaymentEvent,
  PaymentEventRejectedError,
  PaymentRefusedError,
  type Payments,
} from "formwork/ports";
import Stripe from "stripe";
import {
  awaitsIntent,
  eventState,
  expiresAtFor,
  intentStatus,
  sessionParams,
  stateOf,
} from "./sessions.ts";

/** Options of {@link createStripePayments}. */
export interface StripePaymentsOptions {
  /** The account's secret key (`sk_live_…`, or `sk_test_…` in test mode), or a restricted key. */
  secretKey: string;
  /** The signing secret of the webhook endpoint that posts the events (`whsec_…`). */
  webhookSecret: string;
  /**
   * Where Stripe's API answers: another address only for a stand-in (the tests' local server).
   * @default "https://api.stripe.com"
   */
  apiUrl?: string;
  /**
   * Milliseconds one request to Stripe may take. The adapter never retries (the service does).
   * @default 10000
   */
  timeoutMs?: number;
  /**
   * Seconds an event's signature stays good after Stripe signed it; older ones are refused
   * as replays.
   * @default 300
   */
  toleranceSeconds?: number;
  /** An existing client to use instead of one made from the options above. */
  client?: Stripe;
  /** The clock that places a session's expiry inside Stripe's window. @default Date.now */
  now?: () => number;
}

/** Stripe's API address as the client's `host`, `port` and `protocol` options. */
function addressOf(apiUrl: string) {
  let url: URL;
  try {
    url = new URL(apiUrl);
  } catch {
    throw new TypeError(`stripe payments: apiUrl ${JSON.stringify(apiUrl)} is not a URL`);
  }
  if ((url.protocol !== "https:" && url.protocol !== "http:") || url.pathname !== "/") {
    throw new TypeError(`stripe payments: apiUrl must be http(s)://host[:port], not ${apiUrl}`);
  }
  const protocol = url.protocol === "https:" ? "https" : "http";
  const port = url.port || (protocol === "https" ? "443" : "80");
  return { host: url.hostname.replace(/^\[|\]$/g, ""), port, protocol } as const;
}

/** `error` as the port speaks of it: Stripe's refusal of the request for good, or as it was. */
function portError(error: unknown): unknown {
  if (error instanceof Stripe.errors.StripeInvalidRequestError) {
    return new PaymentRefusedError(`stripe: ${error.message}`, { cause: error });
  }
  return error;
}

/** True for Stripe's answer that no such object exists. */
function isMissing(error: unknown): boolean {
  return (
    error instanceof Stripe.errors.StripeInvalidRequestError && error.code === "resource_missing"
  );
}

/**
 * The Payments port over Stripe Checkout (docs/design.md §26): one Checkout Session in
 * `payment` mode per checkout, with one `price_data` line; the reference as the session's
 * `client_reference_id` and its `metadata.formwork_reference`; the idempotency key as Stripe's
 * `Idempotency-Key`. Events are verified with the endpoint's signing secret over the raw
 * body. Stripe's refusal of a request (an `invalid_request_error`: an unsupported currency,
 * an unknown session) rejects with `PaymentRefusedError`; anything else (Stripe down, a
 * timeout, a bad key) with the client's own error. Makes no request until first used.
 */
export function createStripePayments(options: StripePaymentsOptions): Payments {
  const { secretKey, webhookSecret } = options;
  if (!options.client && !secretKey) throw new TypeError("stripe payments: secretKey is empty");
  if (!webhookSecret) throw new TypeError("stripe payments: webhookSecret is empty");
  const now = options.now ?? Date.now;
  const tolerance = options.toleranceSeconds ?? 300;
  const stripe =
    options.client ??
    new Stripe(secretKey, {
      ...(options.apiUrl ? addressOf(options.apiUrl) : {}),
      timeout: options.timeoutMs ?? 10_000,
      maxNetworkRetries: 0,
      telemetry: false,
    });
  const sessions = stripe.checkout.sessions;
  // Stripe answers a repeated key only when the parameters repeat too: an expiry moved into
  // its window is moved once per key, and a retry from this process sends it again.
  const sentExpiry = new Map<string, number>();
  const remember = (key: string, expiresAt: number) => {
    sentExpiry.delete(key);
    sentExpiry.set(key, expiresAt);
    if (sentExpiry.size > 1000) sentExpiry.delete(sentExpiry.keys().next().value as string);
  };

  /**
   * The state of `session` now. A session completed with a delayed method stays `unpaid`
   * whatever becomes of the payment; its payment intent tells whether it failed meanwhile.
   */
  async function stateNow(session: Stripe.Checkout.Session): Promise<CheckoutState> {
    if (!awaitsIntent(session)) return stateOf(session);
    return stateOf(
      session,
      intentStatus(await stripe.paymentIntents.retrieve(session.payment_intent)),
    );
  }

  async function readCheckout(checkout: string): Promise<CheckoutState> {
    try {
      return await stateNow(await sessions.retrieve(checkout));
    } catch (error) {
      throw portError(error);
    }
  }

  return {
    provider: "stripe",

    async startCheckout(request: CheckoutRequest): Promise<Checkout> {
      try {
        const key = request.idempotencyKey;
        const expiresAt = sentExpiry.get(key) ?? expiresAtFor(request.expiresAt, now());
        remember(key, expiresAt);
        const session = await sessions.create(sessionParams(request, expiresAt), {
          idempotencyKey: key,
        });
        if (!session.url) throw new Error(`stripe: session ${session.id} came without a url`);
        return {
          checkout: session.id,
          url: session.url,
          expiresAt: new Date(session.expires_at * 1000),
        };
      } catch (error) {
        throw portError(error);
      }
    },

    readCheckout,

    async expireCheckout(checkout: string): Promise<CheckoutState> {
      try {
        return await stateNow(await sessions.expire(checkout));
      } catch (error) {
        // Stripe expires only an open session; one paid or expired meanwhile is read instead.
        if (error instanceof Stripe.errors.StripeInvalidRequestError && !isMissing(error)) {
          return readCheckout(checkout);
        }
        throw portError(error);
      }
    },

    async parseEvent(body: Uint8Array, headers: Headers): Promise<PaymentEvent | null> {
      const signature = headers.get("stripe-signature");
      if (!signature) throw new PaymentEventRejectedError("stripe: no Stripe-Signature header");
      let event: Stripe.Event;
      try {
        event = await stripe.webhooks.constructEventAsync(
          body,
          signature,
          webhookSecret,
          tolerance,
        );
      } catch (error) {
        throw new PaymentEventRejectedError(`stripe: ${messageOf(error)}`, { cause: error });
      }
      if (!isEvent(event)) throw new PaymentEventRejectedError("stripe: the body is not an event");
      try {
        return eventState(event);
      } catch (error) {
        throw new PaymentEventRejectedError(`stripe: ${messageOf(error)}`, { cause: error });
      }
    },
  };
}

/** True when a verified body has an event's shape: an id, a type and an object. */
function isEvent(event: unknown): event is Stripe.Event {
  const { id, type, data } = (event ?? {}) as Partial<Stripe.Event>;
  return (
    typeof id === "string" &&
    typeof type === "string" &&
    typeof data === "object" &&
    data !== null &&
    typeof data.object === "object" &&
    data.object !== null
  );
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
