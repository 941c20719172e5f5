/**
 * What the local Stripe server refuses and how (Stripe's error shape), the Checkout Session
 * a create request makes, checked as Stripe checks the few parameters it serves, and the
 * page that stands in for Stripe's checkout.
 */
import { type SessionFields, stripeId } from "./stripe-events.ts";

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

/** A refusal: its HTTP status and the body of Stripe's `error`. */
export class StripeRefusal extends Error {
  constructor(
    readonly status: number,
    readonly body: { type: string; message: string; code?: string; param?: string },
  ) {
    super(body.message);
  }
}

/** Stripe's 400 `invalid_request_error`. */
export const invalid = (message: string, param?: string, code?: string) =>
  new StripeRefusal(400, {
    type: "invalid_request_error",
    message,
    ...(param ? { param } : {}),
    ...(code ? { code } : {}),
  });

/** Stripe's 404 for an object it does not know. */
export function missing(object: string, id: string): StripeRefusal {
  return new StripeRefusal(404, {
    type: "invalid_request_error",
    code: "resource_missing",
    param: object === "checkout.session" ? "session" : "intent",
    message: `No such ${object}: '${id}'`,
  });
}

/**
 * The session a create request's `form` makes at `seconds` (Stripe's clock), its checkout
 * page at `pageOf(id)`.
 * @throws {StripeRefusal} for a parameter Stripe would refuse, or one not served here
 */
export function sessionFromForm(
  form: Record<string, unknown>,
  seconds: number,
  pageOf: (id: string) => string,
): SessionFields {
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
    url: pageOf(id),
    successUrl: form.success_url,
    cancelUrl: typeof form.cancel_url === "string" ? form.cancel_url : null,
    email: typeof form.customer_email === "string" ? form.customer_email : null,
    description: name,
  };
  return fields;
}

/** The checkout page of a session: its price, its status, and a button to pay or go back. */
export function checkoutPage(fields: SessionFields): string {
  const price = `${(fields.amount / 100).toFixed(2)} ${fields.currency.toUpperCase()}`;
  return `<!doctype html><title>Checkout</title>
<h1>Pay ${price}</h1><p>Status: ${fields.status}</p>
<form method="post"><button name="action" value="pay">Pay ${price}</button>
<button name="action" value="cancel">Back</button></form>`;
}
