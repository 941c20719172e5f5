/**
 * S2's checkout on a paying form (docs/design.md §26): opened once the submission is stored
 * `pending`, with the submission as its reference and a key derived from it, so that a retry
 * of the call never opens a second one; then recorded on the submission.
 */
import { createHmac, timingSafeEqual } from "node:crypto";
import { ServiceError, ValidationError } from "../../kernel/errors.ts";
import { type Checkout, PaymentRefusedError } from "../../ports/payments.ts";
import { updateRecord } from "../../ports/update-record.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import { type PaymentDue, paymentReference } from "./payment-due.ts";
import { settlePayment } from "./payment-settle.ts";

/**
 * Where the provider sends the respondent back to: the form's hosted page, told which
 * submission, how its checkout ended (`paid` or `cancel`) and the submission's token
 * (`paymentToken`), which lets the page read its status and open a new checkout.
 */
export function returnUrlOf(
  ctx: Context,
  pageUrl: string,
  formId: string,
  submissionId: string,
  outcome: "paid" | "cancel",
) {
  const url = new URL(pageUrl);
  url.searchParams.set("submission", submissionId);
  url.searchParams.set("payment", outcome);
  url.searchParams.set("token", paymentToken(ctx, formId, submissionId));
  return url.href;
}

const keys = new WeakMap<Context, Buffer>();

/** The key of the return tokens, derived from `partners.tokenSecret` as the page's mark is. */
function keyOf(ctx: Context): Buffer {
  let key = keys.get(ctx);
  if (!key) {
    key = createHmac("sha256", ctx.partners.tokenKey).update("formwork payment return").digest();
    keys.set(ctx, key);
  }
  return key;
}

/** The token of a submission's return address: an HMAC of its form and id, base64url. */
export function paymentToken(ctx: Context, formId: string, submissionId: string): string {
  return createHmac("sha256", keyOf(ctx))
    .update(paymentReference(formId, submissionId))
    .digest("base64url");
}

/**
 * Whether `token` is the submission's, compared in constant time as written (so that only
 * the one spelling of the HMAC passes: base64url's last letter has spare bits).
 */
export function tokenHolds(
  ctx: Context,
  formId: string,
  submissionId: string,
  token: string,
): boolean {
  const given = Buffer.from(token);
  const expected = Buffer.from(paymentToken(ctx, formId, submissionId));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** The idempotency key of a submission's first checkout: the same on every retry of S2's call. */
export function firstCheckoutKey(submissionId: string): string {
  return `formwork-checkout-${submissionId}`;
}

/**
 * Opens the checkout of `submission` (stored `pending` by S2's batch) and records it on the
 * submission. When the provider cannot open it, nothing can be paid: the submission is
 * settled `failed` at once, giving back what it took (payment-settle.ts), and S2 fails.
 * A crash before either leaves it `pending` without a checkout, for the sweep.
 * @throws {ValidationError} 400 when the provider refuses the payment for good (an amount
 *   under its minimum, a currency it does not take).
 * @throws {ServiceError} 503 when the provider could not be reached.
 */
export async function openCheckout(
  ctx: Context,
  submission: SubmissionRecord,
  due: PaymentDue,
  pageUrl: string,
): Promise<Checkout> {
  const { form_id: formId, id } = submission;
  const payments = ctx.payments;
  const reference = paymentReference(formId, id);
  let checkout: Checkout;
  try {
    if (!payments) throw new Error("no payments port");
    checkout = await payments.startCheckout({
      amount: due.amount,
      currency: due.currency,
      description: due.description,
      reference,
      idempotencyKey: firstCheckoutKey(id),
      successUrl: returnUrlOf(ctx, pageUrl, formId, id, "paid"),
      cancelUrl: returnUrlOf(ctx, pageUrl, formId, id, "cancel"),
      expiresAt: due.expiresAt,
      ...(due.email ? { email: due.email } : {}),
    });
  } catch (error) {
    const { amount, currency } = due;
    await settlePayment(ctx, { checkout: "", reference, status: "failed", amount, currency });
    throw checkoutFailure(error);
  }
  await recordCheckout(ctx, formId, id, checkout);
  return checkout;
}

/**
 * What a caller is told when the provider did not open a checkout: 400 when it refuses the
 * payment for good (an amount under its minimum, a currency it does not take), else 503.
 */
export function checkoutFailure(error: unknown): ServiceError {
  if (error instanceof PaymentRefusedError) {
    return new ValidationError("The payment provider refuses this payment", [
      { path: "", message: error.message },
    ]);
  }
  return new ServiceError(
    "service_unavailable",
    "The payment provider could not be reached; nothing was taken. Try again shortly",
    [],
    { cause: error },
  );
}

/** Writes the checkout's id on the submission, unless an event recorded one first. */
async function recordCheckout(ctx: Context, formId: string, id: string, checkout: Checkout) {
  await updateRecord<SubmissionRecord>(ctx.store, collections.submissions, formId, id, (current) =>
    current && current.payment_reference === ""
      ? {
          ...current,
          payment_reference: checkout.checkout,
          payment_expires_at: checkout.expiresAt.toISOString(),
        }
      : null,
  );
}
