/**
 * A local stand-in for Stripe's API, for tests that cannot reach Stripe: a real HTTP server
 * on 127.0.0.1 that speaks the Checkout Session endpoints the Stripe adapter uses (create,
 * retrieve, expire, and reading a completed session's payment intent), takes form-encoded bodies as Stripe does, honours `Idempotency-Key`,
 * and answers errors in Stripe's shape. Every answer is validated against the schemas of
 * Stripe's published OpenAPI description (stripe-schemas.json, made by
 * scripts/extract-stripe-schemas.ts): one that drifts is answered 500 instead and recorded
 * in `problems`, so the test fails.
 *
 * A test plays the respondent through `pay`, `complete`, `succeed`, `fail` and `expire`
 * (each answers the event Stripe would send, signed), or through the checkout page at a
 * session's `url`, which posts its events to `webhookUrl` when given.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { Ajv, type ValidateFunction } from "ajv";
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
import schemas from "./stripe-schemas.json" with { type: "json" };

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

/** The currencies the server takes (a part of Stripe's list); others are refused as Stripe does. */
const currencies = new Set([
  "eur",
  "usd",
  "gbp",
  "chf",
  "sek",
  "nok",
  "dkk",
  "pln",
  "jpy",
  "cad",
  "aud",
]);

class StripeRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; message: string; code?: string; param?: string },
  ) {
    super(body.message);
  }
}

const invalid = (message: string, param?: string, code?: string) =>
  new StripeRefusal(400, {
    type: "invalid_request_error",
    message,
    ...(param ? { param } : {}),
    ...(code ? { code } : {}),
  });

export type StripeServer = Awaited<ReturnType<typeof startStripeServer>>;

/** Starts the server on an ephemeral port of 127.0.0.1; `close()` stops it. */
export async function startStripeServer(options: StripeServerOptions = {}) {
  const secretKey = options.secretKey ?? "sk_test_local";
  const webhookSecret = options.webhookSecret ?? "whsec_local";
  const now = options.now ?? Date.now;
  const ajv = new Ajv({ allErrors: true });
  ajv.addSchema({ $id: "stripe", definitions: schemas.definitions });
  const validators = new Map<string, ValidateFunction>();
  const problems: string[] = [];
  const sessions = new Map<string, SessionFields>();
  const intents = new Map<string, IntentFields["status"]>();
  const idempotent = new Map<string, { params: string; status: number; body: unknown }>();
  let base = "";

  /** `value` if it is a valid `schema` of Stripe's description; else a problem recorded. */
  function checked(schema: string, value: unknown): unknown {
    let validate = validators.get(schema);
    if (!validate) {
      validate = ajv.getSchema(`stripe#/definitions/${schema}`) as ValidateFunction;
      validators.set(schema, validate);
    }
    if (validate(value)) return value;
    const problem = `${schema}: ${ajv.errorsText(validate.errors)}`;
    problems.push(problem);
    throw new Error(`the local Stripe server drifted from Stripe's API: ${problem}`);
  }

  const session = (id: string) => {
    const found = sessions.get(id);
    if (!found) {
      throw new StripeRefusal(404, {
        type: "invalid_request_error",
        code: "resource_missing",
        param: "session",
        message: `No such checkout.session: '${id}'`,
      });
    }
    return found;
  };
  const objectOf = (fields: SessionFields) => checked("checkout.session", sessionObject(fields));

  function intentOf(id: string): unknown {
    const status = intents.get(id);
    const found = [...sessions.values()].find((fields) => fields.paymentIntent === id);
    if (!status || !found) {
      throw new StripeRefusal(404, {
        type: "invalid_request_error",
        code: "resource_missing",
        param: "intent",
        message: `No such payment_intent: '${id}'`,
      });
    }
    const { amount, currency, created = 0 } = found;
    return checked(
      "payment_intent",
      paymentIntentObject({ id, amount, currency, status, created }),
    );
  }

  function create(form: Record<string, unknown>): SessionFields {
    const seconds = Math.floor(now() / 1000);
    if (form.mode !== "payment") throw invalid("Only mode=payment is served here.", "mode");
    const lines = form.line_items as Record<string, Record<string, unknown>> | undefined;
    const line = lines?.["0"];
    const price = line?.price_data as Record<string, unknown> | undefined;
    if (!line || Object.keys(lines ?? {}).length !== 1 || !price) {
      throw invalid("One line item with price_data is served here.", "line_items");
    }
    const currency = String(price.currency ?? "");
    if (!currencies.has(currency)) {
      throw invalid(`Invalid currency: ${currency}.`, "line_items[0][price_data][currency]");
    }
    const amount = Number(price.unit_amount);
    if (!Number.isSafeInteger(amount) || amount < 1) {
      throw invalid("Invalid integer.", "line_items[0][price_data][unit_amount]");
    }
    const name = (price.product_data as Record<string, unknown> | undefined)?.name;
    if (typeof name !== "string" || name === "") {
      throw invalid("Missing required param.", "line_items[0][price_data][product_data][name]");
    }
    if (typeof form.success_url !== "string") throw invalid("Missing success_url.", "success_url");
    const expiresAt = form.expires_at === undefined ? seconds + 86_400 : Number(form.expires_at);
    if (!(expiresAt >= seconds + 1800 && expiresAt <= seconds + 86_400)) {
      throw invalid(
        "The `expires_at` timestamp must be between 30 minutes and 24 hours from Checkout Session creation.",
        "expires_at",
      );
    }
    const id = stripeId("cs_test");
    const fields: SessionFields = {
      id,
      amount,
      currency,
      reference: typeof form.client_reference_id === "string" ? form.client_reference_id : null,
      metadata: (form.metadata as Record<string, string> | undefined) ?? {},
      status: "open",
      paymentStatus: "unpaid",
      expiresAt,
      created: seconds,
      url: `${base}/pay/${id}`,
      successUrl: form.success_url,
      cancelUrl: typeof form.cancel_url === "string" ? form.cancel_url : null,
      email: typeof form.customer_email === "string" ? form.customer_email : null,
    };
    sessions.set(id, fields);
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
    const price = `${(found.amount / 100).toFixed(2)} ${found.currency.toUpperCase()}`;
    send(
      response,
      200,
      "text/html; charset=utf-8",
      `<!doctype html><title>Checkout</title>
<h1>Pay ${price}</h1><p>Status: ${found.status}</p>
<form method="post"><button name="action" value="pay">Pay ${price}</button>
<button name="action" value="cancel">Back</button></form>`,
    );
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
        if (!response.headersSent) {
          send(
            response,
            500,
            "application/json",
            JSON.stringify({ error: { type: "api_error", message: error.message } }),
          );
        }
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
    /** The session as the server holds it. */
    session: (id: string) => ({ ...session(id) }),
    /** The respondent pays by card: complete and paid. */
    pay: paid,
    /** The respondent completes with a delayed method: complete, still unpaid. */
    complete: (id: string) =>
      happen(
        id,
        "checkout.session.completed",
        { status: "complete", paymentStatus: "unpaid" },
        "processing",
      ),
    /** The delayed payment arrives. */
    succeed: (id: string) =>
      happen(
        id,
        "checkout.session.async_payment_succeeded",
        { paymentStatus: "paid" },
        "succeeded",
      ),
    /** The delayed payment fails. */
    fail: (id: string) =>
      happen(
        id,
        "checkout.session.async_payment_failed",
        { paymentStatus: "unpaid" },
        "requires_payment_method",
      ),
    /** The session reaches its expiry unpaid. */
    expire: (id: string) => happen(id, "checkout.session.expired", { status: "expired" }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function send(response: ServerResponse, status: number, type: string, body: string): void {
  response.writeHead(status, { "content-type": type });
  response.end(body);
}
