/**
 * The Stripe `Payments`: Stripe Checkout through the official `stripe` package, an optional
 * peer dependency loaded only by whoever imports this entry (docs/design.md §26).
 */
export { createStripePayments, type StripePaymentsOptions } from "./stripe-payments.ts";
