/**
 * A local stand-in for Stripe's API, for tests that cannot reach Stripe: a real HTTP server
 * on 127.0.0.1 speaking the endpoints the Stripe adapter uses (create, retrieve and expire a
 * Checkout Session, read its payment intent) with Stripe's form encoding, `Idempotency-Key`
 * and error shape. Every answer is validated against Stripe's published schemas
 * (stripe-schemas.json, by scripts/extract-stripe-schemas.ts): one that drifts is answered
 * 500 and recorded in `problems`, so the test fails.
 *
 * A test plays the respondent through `pay`, `complete`, `succeed`, `fail` and `expire`
 * (each answers the event Stripe would send, signed), or through the checkout page at a
 * session's `url`; every event is kept in `events` and posted to `webhookUrl` when given.
 * A session past its `expires_at` (by the `now` option's clock) reads expired, as at Stripe,
 * and `expireDue` makes the events of those whose expiry has not been announced yet.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  eventObject,
  type IntentFields,
  paymentIntentObject,
  type SessionFields,
  sessionObject,
  stripeHeaders,
  stripeId,
} from "./stripe-events.ts";
import { parseForm } from "./stripe-form.ts";
import {
  checkoutPage,
  invalid,
  missing,
  StripeRefusal,
  sessionFromForm,
} from "./stripe-requests.ts";
import { schemaProblem } from "./stripe-schema-check.ts";

/** A signed event as Stripe posts it. */
export interface SignedEvent {
  body: Uint8Array;
  headers: Headers;
  /** The event as an object. */
  event: Record<string, unknown>;
}

export interface StripeServerOptions {
  /** The secret key the adapter must send. @default "sk_test_local" */
  secretKey?: string;
  /** The endpoint secret events are signed with. @default "whsec_local" */
  webhookSecret?: string;
  /** Where the checkout page posts the events it causes, as Stripe posts to an endpoint. */
  webhookUrl?: string;
  /** Stripe's clock, in milliseconds. @default Date.now */
  now?: () => number;
}

export type StripeServer = Awaited<ReturnType<typeof startStripeServer>>;

/** Starts the server on an ephemeral port of 127.0.0.1; `close()` stops it. */
export async function startStripeServer(options: StripeServerOptions = {}) {
  const secretKey = options.secretKey ?? "sk_test_local";
  const webhookSecret = options.webhookSecret ?? "whsec_local";
  const now = options.now ?? Date.now;
  const problems: string[] = [];
  const sessions = new Map<string, SessionFields>();
  const intents = new Map<string, IntentFields["status"]>();
  const events: SignedEvent[] = [];
  /** Sessions whose `checkout.session.expired` event was made. */
  const announced = new Set<string>();
  const idempotent = new Map<string, { params: string; status: number; body: unknown }>();
  let base = "";

  /** `value` if it is a valid `schema` of Stripe's description; else a problem recorded. */
  function checked(schema: string, value: unknown): unknown {
    const problem = schemaProblem(schema, value);
    if (problem === null) return value;
    problems.push(problem);
    throw new Error(`the local Stripe server drifted from Stripe's API: ${problem}`);
  }

  const session = (id: string) => {
    const found = sessions.get(id);
    if (!found) throw missing("checkout.session", id);
    // Stripe expires a session at its `expires_at` whether or not its event arrives.
    if (found.status === "open" && now() / 1000 >= found.expiresAt) found.status = "expired";
    return found;
  };
  const objectOf = (fields: SessionFields) => checked("checkout.session", sessionObject(fields));

  function intentOf(id: string): unknown {
    const status = intents.get(id);
    const found = [...sessions.values()].find((fields) => fields.paymentIntent === id);
    if (!status || !found) throw missing("payment_intent", id);
    const { amount, currency, created = 0 } = found;
    return checked(
      "payment_intent",
      paymentIntentObject({ id, amount, currency, status, created }),
    );
  }

  function create(form: Record<string, unknown>): SessionFields {
    const fields = sessionFromForm(form, Math.floor(now() / 1000), (id) => `${base}/pay/${id}`);
    sessions.set(fields.id, fields);
    return fields;
  }

  /** Answers one API request: the status and the JSON body. */
  async function api(request: IncomingMessage, body: string): Promise<[number, unknown]> {
    if (request.headers.authorization !== `Bearer ${secretKey}`) {
      return [401, { type: "invalid_request_error", message: "Invalid API Key provided." }];
    }
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const intent = /^\/v1\/payment_intents\/([^/]+)$/.exec(path)?.[1];
    if (intent && request.method === "GET") return answered(() => intentOf(intent));
    const match = /^\/v1\/checkout\/sessions(?:\/([^/]+)(\/expire)?)?$/.exec(path);
    if (!match)
      return [
        404,
        {
          type: "invalid_request_error",
          message: `Unrecognized request URL (${request.method}: ${path}).`,
        },
      ];
    const [, id, expire] = match;
    if (request.method === "POST" && !id) {
      const key = request.headers["idempotency-key"];
      const replay = typeof key === "string" ? idempotent.get(key) : undefined;
      if (replay && replay.params !== body) {
        return [
          400,
          {
            type: "idempotency_error",
            message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${key}' if you meant to execute a different request.`,
          },
        ];
      }
      if (replay) return [replay.status, replay.body];
      const answer = await answered(() => objectOf(create(parseForm(body))));
      if (typeof key === "string")
        idempotent.set(key, { params: body, status: answer[0], body: answer[1] });
      return answer;
    }
    if (request.method === "GET" && id && !expire) return answered(() => objectOf(session(id)));
    if (request.method === "POST" && id && expire) {
      return answered(() => {
        const found = session(id);
        if (found.status !== "open") {
          throw invalid(
            `Only Checkout Sessions with a status in ["open"] can be expired.`,
            undefined,
            "checkout_session_not_open",
          );
        }
        found.status = "expired";
        return objectOf(found);
      });
    }
    return [405, { type: "invalid_request_error", message: "Method not allowed." }];
  }

  async function answered(make: () => unknown): Promise<[number, unknown]> {
    try {
      return [200, make()];
    } catch (error) {
      if (error instanceof StripeRefusal) return [error.status, error.body];
      throw error;
    }
  }

  /** Changes a session as Stripe would, and answers the event Stripe sends about it. */
  async function happen(
    id: string,
    type: string,
    change: Partial<Pick<SessionFields, "status" | "paymentStatus">>,
    intent?: IntentFields["status"],
  ): Promise<SignedEvent> {
    const found = session(id);
    Object.assign(found, change);
    if (intent) {
      found.paymentIntent ??= stripeId("pi");
      intents.set(found.paymentIntent, intent);
    }
    const event = eventObject(type, objectOf(found) as Record<string, unknown>);
    checked("event", event);
    const body = new TextEncoder().encode(JSON.stringify(event));
    const signed = { body, headers: await stripeHeaders(body, webhookSecret), event };
    events.push(signed);
    if (type === "checkout.session.expired") announced.add(id);
    if (options.webhookUrl) await deliver(signed);
    return signed;
  }

  async function deliver(signed: SignedEvent): Promise<void> {
    await fetch(options.webhookUrl as string, {
      method: "POST",
      body: Buffer.from(signed.body),
      headers: signed.headers,
    }).then((r) => r.arrayBuffer());
  }

  function paid(id: string): Promise<SignedEvent> {
    const change = { status: "complete", paymentStatus: "paid" } as const;
    return happen(id, "checkout.session.completed", change, "succeeded");
  }

  /** The checkout page of a session and its two buttons. */
  async function page(request: IncomingMessage, response: ServerResponse, body: string) {
    const id = decodeURIComponent(new URL(request.url ?? "/", "http://x").pathname.slice(5));
    const found = sessions.get(id);
    if (!found) return send(response, 404, "text/plain", "no such checkout");
    if (request.method === "POST") {
      const action = new URLSearchParams(body).get("action");
      if (action === "pay" && found.status === "open") await paid(id);
      const to = action === "pay" ? found.successUrl : found.cancelUrl;
      response.writeHead(303, { location: (to ?? base).replace("{CHECKOUT_SESSION_ID}", id) });
      return response.end();
    }
    send(response, 200, "text/html; charset=utf-8", checkoutPage(found));
  }

  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const handle = request.url?.startsWith("/pay/")
        ? page(request, response, body)
        : api(request, body).then(([status, answer]) => {
            const json = status === 200 ? answer : checked("error", { error: answer });
            send(response, status, "application/json", JSON.stringify(json));
          });
      handle.catch((error: Error) => {
        const failure = { error: { type: "api_error", message: error.message } };
        if (!response.headersSent) send(response, 500, "application/json", JSON.stringify(failure));
      });
    });
  });
  server.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    /** The API's address, for the adapter's `apiUrl` (or `STRIPE_API_URL`). */
    url: base,
    secretKey,
    webhookSecret,
    /** Every answer that failed validation against Stripe's schemas; empty when all held. */
    problems,
    /** Every event made so far, in order: to send again, or out of order. */
    events,
    /**
     * Sends the `checkout.session.expired` event of every session past its expiry that has
     * not had one (a session past its expiry reads expired even before: an event may be lost).
     */
    async expireDue(): Promise<SignedEvent[]> {
      const due = [...sessions.values()].filter(
        (fields) =>
          fields.status !== "complete" &&
          now() / 1000 >= fields.expiresAt &&
          !announced.has(fields.id),
      );
      const made: SignedEvent[] = [];
      for (const fields of due) {
        made.push(await happen(fields.id, "checkout.session.expired", { status: "expired" }));
      }
      return made;
    },
    /** The session as the server holds it. */
    session: (id: string) => ({ ...session(id) }),
    /** The respondent pays by card: complete and paid. */
    pay: paid,
    /** The respondent completes with a delayed method: complete, still unpaid. */
    complete: (id: string) => happen(id, ...delayed.complete),
    /** The delayed payment arrives. */
    succeed: (id: string) => happen(id, ...delayed.succeed),
    /** The delayed payment fails. */
    fail: (id: string) => happen(id, ...delayed.fail),
    /** The session reaches its expiry unpaid. */
    expire: (id: string) => happen(id, "checkout.session.expired", { status: "expired" }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** A delayed payment's steps: the event, the session's change and the intent's status. */
const delayed = {
  complete: [
    "checkout.session.completed",
    { status: "complete", paymentStatus: "unpaid" },
    "processing",
  ],
  succeed: ["checkout.session.async_payment_succeeded", { paymentStatus: "paid" }, "succeeded"],
  fail: [
    "checkout.session.async_payment_failed",
    { paymentStatus: "unpaid" },
    "requires_payment_method",
  ],
} as const;

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { "content-type": type });
  response.end(body);
}
