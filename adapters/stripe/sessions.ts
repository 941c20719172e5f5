/**
 * Checkout Sessions as the port speaks of them: the request Stripe takes for a checkout, and
 * the state a session or an event about one reports (docs/design.md §26).
 */
import type { CheckoutRequest, CheckoutState, PaymentEvent, PaymentStatus } from "formwork/ports";
import type Stripe from "stripe";

/** The metadata key that carries the reference beside `client_reference_id`. */
export const referenceKey = "formwork_reference";

/** Stripe takes a session's `expires_at` from 30 minutes to 24 hours after it is created. */
const window = { min: 30 * 60_000, max: 24 * 60 * 60_000 };
/** Kept from each end of the window, for the clocks' skew and the request's way there. */
const margin = 60_000;

/**
 * When the session will expire: as asked when that lies inside Stripe's window (with a
 * minute's margin at each end), else the nearest end of it, in whole seconds.
 */
export function expiresAtFor(asked: Date, now: number): number {
  const earliest = now + window.min + margin;
  const latest = now + window.max - margin;
  return Math.ceil(Math.min(Math.max(asked.getTime(), earliest), latest) / 1000);
}

/**
 * The Checkout Session that collects `request`: one line of `amount`, paid once, expiring at
 * `expiresAt` (seconds, from {@link expiresAtFor}).
 */
export function sessionParams(
  request: CheckoutRequest,
  expiresAt: number,
): Stripe.Checkout.SessionCreateParams {
  return {
    mode: "payment",
    line_items: [
      {
        quantity: 1,
        price_data: {
          currency: request.currency.toLowerCase(),
          unit_amount: request.amount,
          product_data: { name: request.description },
        },
      },
    ],
    client_reference_id: request.reference,
    metadata: { [referenceKey]: request.reference },
    success_url: request.successUrl,
    cancel_url: request.cancelUrl,
    expires_at: expiresAt,
    ...(request.email ? { customer_email: request.email } : {}),
  };
}

/**
 * What a session's own fields say: paid once its money arrived (`no_payment_required` counts,
 * as Stripe settles it so), expired once it expired; a session completed with a delayed method
 * still `unpaid` is pending until `checkout.session.async_payment_*` tells.
 */
function statusOf(session: Stripe.Checkout.Session): PaymentStatus {
  if (session.status === "expired") return "expired";
  if (session.status === "complete" && session.payment_status !== "unpaid") return "paid";
  return "pending";
}

/**
 * What a completed session's payment intent says of a delayed payment: arrived, failed (the
 * intent wants another method, or was cancelled), or still on its way.
 */
export function intentStatus(intent: Stripe.PaymentIntent): PaymentStatus {
  if (intent.status === "succeeded") return "paid";
  if (intent.status === "requires_payment_method" || intent.status === "canceled") return "failed";
  return "pending";
}

/** True when the session alone cannot tell: completed with a delayed method, still unpaid. */
export function awaitsIntent(
  session: Stripe.Checkout.Session,
): session is Stripe.Checkout.Session & {
  payment_intent: string;
} {
  return (
    session.status === "complete" &&
    session.payment_status === "unpaid" &&
    typeof session.payment_intent === "string"
  );
}

/** The reference the session was opened with, or `null` for a session Formwork did not open. */
function referenceOf(session: Stripe.Checkout.Session): string | null {
  return session.client_reference_id ?? session.metadata?.[referenceKey] ?? null;
}

/** The port's state of `session`, reported as `status` (the session's own by default). */
export function stateOf(
  session: Stripe.Checkout.Session,
  status: PaymentStatus = statusOf(session),
): CheckoutState {
  return {
    checkout: session.id,
    reference: referenceOf(session) ?? "",
    status,
    amount: session.amount_total ?? 0,
    currency: (session.currency ?? "").toUpperCase(),
  };
}

/** The status each event type about a session reports; other types concern no checkout. */
const reportedBy: Record<string, (session: Stripe.Checkout.Session) => PaymentStatus> = {
  "checkout.session.completed": statusOf,
  "checkout.session.async_payment_succeeded": () => "paid",
  "checkout.session.async_payment_failed": () => "failed",
  "checkout.session.expired": () => "expired",
};

/**
 * The state `event` reports, or `null` when it concerns no checkout of Formwork's (another
 * type, or a session opened without a reference, by another integration on the account).
 * @throws {TypeError} when a session event carries no session.
 */
export function eventState(event: Stripe.Event): PaymentEvent | null {
  const report = reportedBy[event.type];
  if (!report) return null;
  const session = event.data?.object as Stripe.Checkout.Session | undefined;
  if (session?.object !== "checkout.session" || typeof session.id !== "string") {
    throw new TypeError(`a ${event.type} event without a checkout session`);
  }
  if (referenceOf(session) === null) return null;
  return { id: event.id, ...stateOf(session, report(session)) };
}
