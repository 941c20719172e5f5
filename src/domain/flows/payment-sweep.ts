/**
 * The payment sweep (docs/design.md §26): asks the provider after checkouts still `pending`
 * well past their expiry, so that a lost event cannot hold a submission's slot, inventory
 * and quota for ever.
 */
import type { CheckoutState } from "../../ports/payments.ts";
import { queryAll } from "../../ports/query-all.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import { readSweepCursor, saveSweepCursor } from "../records/sweep-cursors.ts";
import { hourOf, type PaymentNote, paymentReference } from "./payment-due.ts";
import { settlePayment } from "./payment-settle.ts";

/** How long past its expiry a checkout's own event has to arrive before the sweep asks. */
export const paymentSweepGraceMs = 60 * 60 * 1000;

const hour = 60 * 60 * 1000;
const sweepName = "payment-sweep";

/**
 * Works hour by hour through the notes S2 wrote (partition: the checkout's expiry hour),
 * with a cursor in the Store, up to the hour that ended {@link paymentSweepGraceMs} ago. A
 * noted submission still `pending` has its checkout read, and ended if still open
 * (`expireCheckout` answers `paid` when it was paid meanwhile), then is settled as the
 * provider answers, exactly as by its event (payment-settle.ts). One without a checkout (S2
 * died before recording it) expires as it stands: a payment reported later still settles
 * it `paid`. An hour is done, its notes deleted and the cursor moved, only once all its
 * submissions are settled: a provider that cannot be reached is asked again next sweep.
 * @returns how many submissions it settled.
 */
export async function sweepPayments(ctx: Context): Promise<number> {
  const payments = ctx.payments;
  if (!payments) return 0;
  const now = ctx.now().getTime();
  const end = hourOf(new Date(now - paymentSweepGraceMs - hour).toISOString());
  const cursor = await readSweepCursor(ctx.store, sweepName);
  let bucket = cursor ?? hourOf(new Date(now - 48 * hour).toISOString());
  let settled = 0;
  while (bucket <= end) {
    const notes = await queryAll<PaymentNote>(ctx.store, collections.paymentNotes, bucket);
    for (const note of notes) settled += await sweepNote(ctx, note, bucket);
    await ctx.store.deletePartition(collections.paymentNotes, bucket);
    bucket = hourOf(new Date(Date.parse(`${bucket}:00:00Z`) + hour).toISOString());
    await saveSweepCursor(ctx.store, sweepName, bucket);
  }
  return settled;
}

/**
 * Settles one noted submission if it is still pending, unless its checkout now expires in a
 * later hour: a new checkout the page opened (payment-return.ts), whose note is in its hour.
 * @returns 1 when it changed.
 */
async function sweepNote(ctx: Context, note: PaymentNote, bucket: string): Promise<number> {
  const { form_id: formId, submission_id: submissionId } = note;
  const stored = await ctx.store.get<SubmissionRecord>(
    collections.submissions,
    formId,
    submissionId,
  );
  const record = stored?.record;
  if (record?.payment_status !== "pending") return 0;
  const expires = record.payment_expires_at ?? "";
  if ((record.payment_attempts ?? 1) > 1 && hourOf(expires) > bucket) return 0;
  const reference = paymentReference(formId, submissionId);
  const checkout = record.payment_reference ?? "";
  const amount = record.payment_amount ?? 0;
  const currency = record.payment_currency ?? "";
  let state: CheckoutState = { checkout, reference, status: "expired", amount, currency };
  if (checkout !== "" && ctx.payments) {
    state = await ctx.payments.readCheckout(checkout);
    if (state.status === "pending") state = await ctx.payments.expireCheckout(checkout);
  }
  const { changed } = await settlePayment(ctx, { ...state, reference });
  return changed ? 1 : 0;
}
