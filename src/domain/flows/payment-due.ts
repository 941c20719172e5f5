/**
 * What an S2 to a paying form owes (docs/design.md §26): the amount the server computes from
 * the form's `paymentsettings` and the checked values, never one the client sent, and the
 * submission's payment fields and sweep note written in S2's batch.
 */
import { ValidationError } from "../../kernel/errors.ts";
import type { BatchOp } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import { fieldsOf } from "../forms/form-definition.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { collections } from "../records/collections.ts";
import type { SubmissionRecord, SubmittedField } from "../records/submission-record.ts";
import { minorAmountOf, paymentOf } from "../settings/sections/payment.ts";
import { renderWithin } from "../webhooks/template-rendering.ts";

/** A payment a post owes. */
export interface PaymentDue {
  /** Minor units, positive. */
  amount: number;
  currency: string;
  /** Plain text, at most {@link descriptionBytes} bytes. */
  description: string;
  expiresAt: Date;
  /** The first e-mail field's value, to fill in the checkout. */
  email?: string;
}

/** The most UTF-8 bytes of a rendered description. */
const descriptionBytes = 1000;

/**
 * What a post of `values` to `form` owes, or `null` when it pays nothing: a draft, a service
 * without a payments port, a form without an enabled (and valid) section, or an amount of 0
 * (a calculated total of nothing is a free order, stored and acted on at once).
 * @throws {ValidationError} at the amount field when its value is not an amount: not a
 *   finite number of 0 or more in major units, or past the most one payment may be.
 */
export function paymentDueOf(
  ctx: Context,
  form: FormRecord,
  values: readonly SubmittedField[],
  draft: boolean,
): PaymentDue | null {
  if (draft || !ctx.payments) return null;
  const payment = paymentOf(form);
  if (!payment) return null;
  const view: Record<string, string> = {};
  for (const field of values) view[field.unique_system_name] = field.submitted_value;
  let amount: number | null;
  if ("minor" in payment.amount) amount = payment.amount.minor;
  else {
    const { field } = payment.amount;
    amount = minorAmountOf(view[field] ?? "", payment.currency);
    if (amount === null) {
      throw new ValidationError("The amount to pay is not an amount", [
        { path: field, message: `must be an amount of ${payment.currency} of 0 or more` },
      ]);
    }
  }
  if (amount === 0) return null;
  const formName = form.form_configuration.settings.form_name;
  view.form_name = formName;
  const rendered = payment.description
    ? renderWithin(payment.description, view, descriptionBytes, { escape: false })
    : null;
  const description = rendered?.replace(/\s+/g, " ").trim() || formName || "Payment";
  const minutes = payment.expiresAfterMinutes;
  const expiresAt = new Date(ctx.now().getTime() + minutes * 60_000);
  const due: PaymentDue = { amount, currency: payment.currency, description, expiresAt };
  const email = emailOf(form, view);
  if (email) due.email = email;
  return due;
}

/** The value of the form's first e-mail field that has one. */
function emailOf(form: FormRecord, view: Record<string, string>): string | undefined {
  for (const field of fieldsOf(form.form_definition)) {
    const value = field.type === "email" ? view[field.unique_system_name] : undefined;
    if (value) return value;
  }
  return undefined;
}

/** The payment fields of a submission stored `pending`, its checkout not opened yet. */
export function pendingPayment(ctx: Context, due: PaymentDue): Partial<SubmissionRecord> {
  return {
    payment_status: "pending",
    payment_amount: due.amount,
    payment_currency: due.currency,
    payment_provider: ctx.payments?.provider ?? "",
    payment_reference: "",
    payment_expires_at: due.expiresAt.toISOString(),
  };
}

/** A note that a submission waits for its payment; partition: the checkout's expiry hour. */
export interface PaymentNote {
  id: string;
  form_id: string;
  submission_id: string;
}

/** The op that notes `submission` for the payment sweep (payment-sweep.ts), in S2's batch. */
export function paymentNoteOp(submission: SubmissionRecord): BatchOp {
  const expires = submission.payment_expires_at ?? submission.created_date_utc;
  const record: PaymentNote = {
    id: paymentReference(submission.form_id, submission.id),
    form_id: submission.form_id,
    submission_id: submission.id,
  };
  return { op: "create", collection: collections.paymentNotes, partition: hourOf(expires), record };
}

/** The hour bucket (`YYYY-MM-DDTHH`) of an ISO time. */
export function hourOf(iso: string): string {
  return iso.slice(0, 13);
}

/**
 * The reference the service gives a checkout: the submission's form and id, so that an
 * event finds the submission with a point read in its form's partition.
 */
export function paymentReference(formId: string, submissionId: string): string {
  return `${formId}.${submissionId}`;
}

/** The form and submission a checkout's reference names, or `null` for none of ours. */
export function referencedSubmission(
  reference: string,
): { formId: string; submissionId: string } | null {
  const match = /^([0-9a-f-]{36})\.([0-9a-f-]{36})$/.exec(reference);
  return match ? { formId: match[1] ?? "", submissionId: match[2] ?? "" } : null;
}
