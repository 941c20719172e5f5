import type { Caller } from "../auth/caller.ts";
import { type Context, collections } from "../context.ts";
import type { Device } from "../device.ts";
import { NotFoundError, ServiceError, ValidationError } from "../errors.ts";
import { newId } from "../ids.ts";
import { createdAt } from "../timestamps.ts";
import {
  claimAttachments,
  deleteAttachments,
  fileIdsOf,
  releaseAttachments,
} from "./attachment-claims.ts";
import { adjustCount, type CounterKey } from "./counters.ts";
import { accessFormToSubmit } from "./form-access.ts";
import type { FormRecord } from "./form-record.ts";
import { takeQuota } from "./quotas.ts";
import { searchWordsOf } from "./search-words.ts";
import type { SubmissionRecord, SubmittedField } from "./submission-record.ts";
import { checkSubmittedValues } from "./submission-values.ts";
import { thanksPageOf } from "./thanks-page.ts";
import { enqueueSubmissionCreated } from "./webhook-outbox.ts";

/** What S2 and S6 take (design.md §4). */
export interface SubmissionInput {
  form_fields: SubmittedField[];
  is_draft_submission?: boolean;
}

interface QuantityLimitSettings {
  max_total_submissions?: number | null;
  closes_at_utc?: string | null;
}

/**
 * S2: stores a submission to a form open to the caller. The form's slot is reserved first
 * (so that `max_total_submissions` holds under concurrent posts), then its files are
 * claimed, then the record is written; a failure at any step takes back the steps before.
 */
export async function createSubmission(
  ctx: Context,
  caller: Caller | null,
  formId: string,
  input: SubmissionInput,
  device: Device,
) {
  const { form } = await accessFormToSubmit(ctx, caller, formId);
  const limits = (form.form_configuration.quantitylimitsettings ?? {}) as QuantityLimitSettings;
  if (limits.closes_at_utc && Date.parse(limits.closes_at_utc) <= ctx.now().getTime()) {
    throw new ServiceError("form_closed", "This form is closed to new submissions");
  }
  const draft = input.is_draft_submission ?? false;
  const values = await checkSubmittedValues(
    ctx,
    form.form_definition,
    input.form_fields,
    draft,
    form.owner_user_id,
  );
  const limit = limits.max_total_submissions ?? Number.POSITIVE_INFINITY;
  const monthly = await takeQuota(ctx, form.owner_user_id, "monthly_form_submissions");
  if (!(await adjustCount(ctx, formCounter(formId), "submissions", 1, limit))) {
    await monthly.giveBack();
    throw new ServiceError("form_closed", "This form has received all the submissions it takes");
  }
  const id = newId();
  let claimed: string[] = [];
  try {
    claimed = await claimAttachments(ctx, formId, id, form.form_definition, values);
    await storeSubmission(ctx, {
      form_id: formId,
      stale_form_name: form.form_configuration.settings.form_name,
      created_by_verified_email_address: caller?.email ?? "",
      created_by_device: device,
      form_fields: values,
      search_words: searchWordsOf(form.form_definition, values),
      is_draft_submission: draft,
      id,
      ...createdAt(ctx.now()),
    });
  } catch (error) {
    await releaseAttachments(ctx, formId, claimed);
    await adjustCount(ctx, formCounter(formId), "submissions", -1);
    await monthly.giveBack();
    throw error;
  }
  return {
    id,
    message: "Submission posted successfully",
    ...thanksPageOf(form),
    cloud_database_post_expected_but_failed: false,
    email_address_post_expected_but_failed: false,
    actionSuccessful: true,
  };
}

/**
 * S6: replaces the given fields' values and may clear the draft flag. Files dropped from a
 * file field are deleted; new ones are claimed. The write is conditional on the etag read.
 */
export async function updateSubmission(
  ctx: Context,
  form: FormRecord,
  submissionId: string,
  input: SubmissionInput,
) {
  const { record, etag } = await readSubmission(ctx, form.id, submissionId);
  if (input.is_draft_submission === true && !record.is_draft_submission) {
    throw new ValidationError("A submission that is no longer a draft cannot become one", [
      { path: "is_draft_submission", message: "can only be cleared" },
    ]);
  }
  const draft = input.is_draft_submission ?? record.is_draft_submission;
  const merged = new Map(record.form_fields.map((f) => [f.unique_system_name, f]));
  for (const field of input.form_fields) merged.set(field.unique_system_name, field);
  const fields = [...merged.values()];
  const values = await checkSubmittedValues(
    ctx,
    form.form_definition,
    fields,
    draft,
    form.owner_user_id,
  );
  const claimed = await claimAttachments(ctx, form.id, record.id, form.form_definition, values);
  const next: SubmissionRecord = {
    ...record,
    form_fields: values,
    search_words: searchWordsOf(form.form_definition, values),
    is_draft_submission: draft,
    modified_date_utc: ctx.now().toISOString(),
  };
  try {
    await ctx.store.replace(collections.submissions, form.id, next, { ifMatch: etag });
  } catch (error) {
    await releaseAttachments(ctx, form.id, claimed);
    throw error;
  }
  // A draft that becomes a submission is announced as a new one (design.md §7).
  if (record.is_draft_submission && !draft) await enqueueSubmissionCreated(ctx, next);
  const kept = new Set(fileIdsOf(form.form_definition, values));
  const dropped = fileIdsOf(form.form_definition, record.form_fields).filter((id) => !kept.has(id));
  await deleteAttachments(ctx, form, dropped);
  return {
    message: "Form submission has been updated successfully",
    form_submission_item_updated: true,
  };
}

/** S7: deletes a submission, its files, and frees its slot on the form. */
export async function deleteSubmission(ctx: Context, form: FormRecord, submissionId: string) {
  const { record, etag } = await readSubmission(ctx, form.id, submissionId);
  const deleted = await ctx.store.delete(collections.submissions, form.id, record.id, {
    ifMatch: etag,
  });
  if (deleted) {
    await deleteAttachments(ctx, form, fileIdsOf(form.form_definition, record.form_fields));
    await adjustCount(ctx, formCounter(form.id), "submissions", -1);
  }
  return {
    message: "Form submission has been deleted successfully",
    form_submission_item_deleted: deleted,
  };
}

/**
 * Writes a new submission and, unless it is a draft, queues its webhook deliveries before
 * anyone is told it exists; if queueing fails, the submission is taken back.
 */
async function storeSubmission(ctx: Context, submission: SubmissionRecord) {
  await ctx.store.create(collections.submissions, submission.form_id, submission);
  if (submission.is_draft_submission) return;
  try {
    await enqueueSubmissionCreated(ctx, submission);
  } catch (error) {
    await ctx.store.delete(collections.submissions, submission.form_id, submission.id);
    throw error;
  }
}

/** Reads a submission of a form. @throws {NotFoundError} when there is none. */
export async function readSubmission(ctx: Context, formId: string, submissionId: string) {
  const stored = await ctx.store.get<SubmissionRecord>(
    collections.submissions,
    formId,
    submissionId,
  );
  if (!stored) throw new NotFoundError("Submission not found");
  return stored;
}

/** The counter record of a form: how many submissions it holds. */
export function formCounter(formId: string): CounterKey {
  return { collection: collections.formCounters, partition: formId, id: formId };
}
