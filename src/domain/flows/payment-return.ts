/**
 * The respondent's way back from a checkout (docs/design.md §26): the hosted page reads its
 * submission's payment status and, for one still `pending`, opens a new checkout. Neither
 * reads an account: the return address carries a token the service signs for the submission,
 * which is the credential.
 */
import { NotFoundError } from "../../kernel/errors.ts";
import type { Checkout, PaymentStatus } from "../../ports/payments.ts";
import { StoreConflictError } from "../../ports/store.ts";
import { updateRecord } from "../../ports/update-record.ts";
import type { Context } from "../context.ts";
import { formSnapshot, readFormCounter, versionOf } from "../forms/form-snapshots.ts";
import { collections } from "../records/collections.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import { paymentOf, paymentWindowMinutes } from "../settings/sections/payment.ts";
import { checkoutFailure, firstCheckoutKey, returnUrlOf, tokenHolds } from "./payment-checkout.ts";
import { paymentDueOf, paymentNoteOp, paymentReference } from "./payment-due.ts";
import { settlePayment } from "./payment-settle.ts";

/** What the page learns of a submission's payment. */
export interface PaymentView {
  id: string;
  payment_status: PaymentStatus;
  /** Present when a new checkout was opened: where to send the respondent. */
  checkout_url?: string;
}

/**
 * The paying submission the token is for. A wrong token, an unknown submission and one that
 * pays nothing all answer the same 404, so that a guess learns nothing.
 */
async function paying(ctx: Context, formId: string, submissionId: string, token: string) {
  const missing = new NotFoundError("No such payment");
  if (!tokenHolds(ctx, formId, submissionId, token)) throw missing;
  const stored = await ctx.store.get<SubmissionRecord>(
    collections.submissions,
    formId,
    submissionId,
  );
  if (!stored?.record.payment_status) throw missing;
  return stored.record;
}

/** The payment status of a submission, for the holder of its return token. */
export async function readPaymentStatus(
  ctx: Context,
  formId: string,
  submissionId: string,
  token: string,
): Promise<PaymentView> {
  const record = await paying(ctx, formId, submissionId, token);
  return { id: record.id, payment_status: record.payment_status as PaymentStatus };
}

/**
 * A new checkout for a submission still `pending` (its respondent left the last one unpaid),
 * for the holder of its return token. The new checkout (key `formwork-checkout-<id>-<n>`)
 * is opened and recorded first, with a sweep note in its expiry hour; then the old one is
 * ended, so that its `expired` event, from a checkout no longer the submission's, changes
 * nothing. Should the old one answer `paid` (paid meanwhile), the submission is settled
 * paid, which ends the new one. A submission no longer pending answers its status, with no
 * checkout.
 */
export async function retryPayment(
  ctx: Context,
  formId: string,
  submissionId: string,
  token: string,
  pageUrl: string,
): Promise<PaymentView> {
  const record = await paying(ctx, formId, submissionId, token);
  const status = record.payment_status as PaymentStatus;
  const payments = ctx.payments;
  if (status !== "pending" || !payments || payments.provider !== record.payment_provider)
    return { id: submissionId, payment_status: status };
  const attempt = (record.payment_attempts ?? 1) + 1;
  const old = record.payment_reference ?? "";
  const reference = paymentReference(formId, submissionId);
  const checkout = await startAgain(ctx, record, attempt, pageUrl);
  const opened = {
    payment_reference: checkout.checkout,
    payment_expires_at: checkout.expiresAt.toISOString(),
    payment_attempts: attempt,
  };
  await ctx.store.batch([paymentNoteOp({ ...record, ...opened })]).catch((error) => {
    // The hour's note is there already: the sweep will ask about it.
    if (!(error instanceof StoreConflictError)) throw error;
  });
  const written = await updateRecord<SubmissionRecord>(
    ctx.store,
    collections.submissions,
    formId,
    submissionId,
    (current) =>
      current?.payment_status === "pending" && (current.payment_reference ?? "") === old
        ? { ...current, ...opened }
        : null,
  );
  if (written?.record.payment_reference !== checkout.checkout) {
    // Settled or retried meanwhile: the new checkout is not the submission's.
    await payments.expireCheckout(checkout.checkout).catch(() => undefined);
    return { id: submissionId, payment_status: written?.record.payment_status ?? status };
  }
  if (old !== "") {
    const ended = await payments.expireCheckout(old).catch(() => null);
    if (ended?.status === "paid") {
      const settled = await settlePayment(ctx, { ...ended, reference });
      return { id: submissionId, payment_status: settled.status ?? "paid" };
    }
  }
  return { id: submissionId, payment_status: "pending", checkout_url: checkout.url };
}

/** Opens attempt `attempt`'s checkout of `record`, for the amount it was stored with. */
async function startAgain(
  ctx: Context,
  record: SubmissionRecord,
  attempt: number,
  pageUrl: string,
): Promise<Checkout> {
  const { form_id: formId, id } = record;
  const counter = await readFormCounter(ctx, formId);
  const form = (await formSnapshot(ctx, formId, versionOf(counter)))?.form;
  if (!form) throw new NotFoundError("No such payment");
  let due: ReturnType<typeof paymentDueOf> = null;
  try {
    due = paymentDueOf(ctx, form, record.form_fields, false);
  } catch {
    // The form's amount field changed meanwhile: the stored amount is still what is owed.
  }
  const minutes = paymentOf(form)?.expiresAfterMinutes ?? paymentWindowMinutes.default;
  try {
    return await (ctx.payments as NonNullable<Context["payments"]>).startCheckout({
      amount: record.payment_amount ?? 0,
      currency: record.payment_currency ?? "",
      description: due?.description ?? (form.form_configuration.settings.form_name || "Payment"),
      reference: paymentReference(formId, id),
      idempotencyKey: `${firstCheckoutKey(id)}-${attempt}`,
      successUrl: returnUrlOf(ctx, pageUrl, formId, id, "paid"),
      cancelUrl: returnUrlOf(ctx, pageUrl, formId, id, "cancel"),
      expiresAt: new Date(ctx.now().getTime() + minutes * 60_000),
      ...(due?.email ? { email: due.email } : {}),
    });
  } catch (error) {
    throw checkoutFailure(error);
  }
}
