/**
 * Checkout Sessions and events as Stripe's API writes them, for the local Stripe server and
 * the Payments conformance fixture: the objects, and the `Stripe-Signature` that signs them
 * (`stripe.webhooks.generateTestHeaderString`, as Stripe's docs advise for tests).
 */
import { randomBytes } from "node:crypto";
import Stripe from "stripe";
import type { CheckoutState } from "../../src/ports/index.ts";
import type { PaymentEventKind } from "../../src/testing/index.ts";

/** A Stripe-like id: `prefix_` and 24 random letters and digits. */
export function stripeId(prefix: string): string {
  return `${prefix}_${randomBytes(18).toString("base64url").replace(/[-_]/g, "x").slice(0, 24)}`;
}

/** What a session holds beyond what Stripe fills in. */
export interface SessionFields {
  id: string;
  amount: number;
  /** Lower case, as Stripe writes it. */
  currency: string;
  reference: string | null;
  metadata?: Record<string, string>;
  status: "open" | "complete" | "expired";
  paymentStatus: "paid" | "unpaid" | "no_payment_required";
  expiresAt: number;
  /** The payment intent of a completed session. */
  paymentIntent?: string | null;
  created?: number;
  url?: string | null;
  successUrl?: string;
  cancelUrl?: string | null;
  email?: string | null;
  /** The line's product name: what the respondent is shown they pay for. */
  description?: string;
}

/** A Checkout Session object in `payment` mode, with the fields Stripe always answers. */
export function sessionObject(fields: SessionFields): Record<string, unknown> {
  return {
    id: fields.id,
    object: "checkout.session",
    after_expiration: null,
    allow_promotion_codes: null,
    amount_subtotal: fields.amount,
    amount_total: fields.amount,
    automatic_tax: { enabled: false, status: null },
    billing_address_collection: null,
    cancel_url: fields.cancelUrl ?? null,
    client_reference_id: fields.reference,
    consent: null,
    consent_collection: null,
    created: fields.created ?? Math.floor(Date.now() / 1000),
    currency: fields.currency,
    currency_conversion: null,
    custom_fields: [],
    custom_text: { shipping_address: null, submit: null },
    customer: null,
    customer_creation: "if_required",
    customer_details: fields.email
      ? { email: fields.email, tax_exempt: "none", tax_ids: [] }
      : null,
    customer_email: fields.email ?? null,
    expires_at: fields.expiresAt,
    invoice: null,
    invoice_creation: null,
    livemode: false,
    locale: null,
    metadata: fields.metadata ?? {},
    mode: "payment",
    payment_intent: fields.paymentIntent ?? null,
    payment_link: null,
    payment_method_collection: "if_required",
    payment_method_options: {},
    payment_method_types: ["card"],
    payment_status: fields.paymentStatus,
    phone_number_collection: { enabled: false },
    recovered_from: null,
    setup_intent: null,
    shipping_address_collection: null,
    shipping_cost: null,
    shipping_details: null,
    shipping_options: [],
    status: fields.status,
    submit_type: null,
    subscription: null,
    success_url: fields.successUrl ?? null,
    total_details: { amount_discount: 0, amount_shipping: 0, amount_tax: 0 },
    url: fields.status === "open" ? (fields.url ?? null) : null,
  };
}

/** What a payment intent holds beyond what Stripe fills in. */
export interface IntentFields {
  id: string;
  amount: number;
  currency: string;
  status: "processing" | "succeeded" | "requires_payment_method";
  created: number;
}

/** A PaymentIntent object as Checkout makes it, with the fields Stripe always answers. */
export function paymentIntentObject(fields: IntentFields): Record<string, unknown> {
  return {
    id: fields.id,
    object: "payment_intent",
    amount: fields.amount,
    amount_capturable: 0,
    amount_received: fields.status === "succeeded" ? fields.amount : 0,
    application: null,
    application_fee_amount: null,
    automatic_payment_methods: null,
    canceled_at: null,
    cancellation_reason: null,
    capture_method: "automatic",
    client_secret: null,
    confirmation_method: "automatic",
    created: fields.created,
    currency: fields.currency,
    customer: null,
    description: null,
    invoice: null,
    last_payment_error: null,
    latest_charge: null,
    livemode: false,
    metadata: {},
    on_behalf_of: null,
    payment_method: null,
    payment_method_types: ["card", "sepa_debit"],
    receipt_email: null,
    review: null,
    setup_future_usage: null,
    shipping: null,
    statement_descriptor: null,
    statement_descriptor_suffix: null,
    status: fields.status,
    transfer_data: null,
    transfer_group: null,
  };
}

/** An event of `type` about `object`, as Stripe posts it to a webhook endpoint. */
export function eventObject(
  type: string,
  object: Record<string, unknown>,
): Record<string, unknown> {
  return {
    id: stripeId("evt"),
    object: "event",
    api_version: Stripe.API_VERSION,
    created: Math.floor(Date.now() / 1000),
    data: { object },
    livemode: false,
    pending_webhooks: 1,
    request: { id: null, idempotency_key: null },
    type,
  };
}

/** The event type and session fields that report each kind of event of the conformance cases. */
const kinds: Record<
  Exclude<PaymentEventKind, "unrelated">,
  [string, SessionFields["status"], SessionFields["paymentStatus"]]
> = {
  paid: ["checkout.session.completed", "complete", "paid"],
  processing: ["checkout.session.completed", "complete", "unpaid"],
  async_paid: ["checkout.session.async_payment_succeeded", "complete", "paid"],
  async_failed: ["checkout.session.async_payment_failed", "complete", "unpaid"],
  expired: ["checkout.session.expired", "expired", "unpaid"],
};

/** The event of `kind` about the checkout `state` describes, as Stripe would post it. */
export function stripeEvent(kind: PaymentEventKind, state: CheckoutState): Record<string, unknown> {
  if (kind === "unrelated") {
    return eventObject("customer.created", { id: stripeId("cus"), object: "customer" });
  }
  const [type, status, paymentStatus] = kinds[kind];
  const session = sessionObject({
    id: state.checkout,
    amount: state.amount,
    currency: state.currency.toLowerCase(),
    reference: state.reference,
    metadata: { formwork_reference: state.reference },
    status,
    paymentStatus,
    expiresAt: Math.floor(Date.now() / 1000),
    paymentIntent: status === "complete" ? stripeId("pi") : null,
  });
  return eventObject(type, session);
}

/** The headers Stripe posts `body` with: its signature by `secret`, made `ageSeconds` ago. */
export async function stripeHeaders(
  body: Uint8Array,
  secret: string,
  ageSeconds = 0,
): Promise<Headers> {
  const signature = await Stripe.webhooks.generateTestHeaderStringAsync({
    payload: new TextDecoder().decode(body),
    secret,
    timestamp: Math.floor(Date.now() / 1000) - ageSeconds,
  });
  return new Headers({ "content-type": "application/json", "stripe-signature": signature });
}
