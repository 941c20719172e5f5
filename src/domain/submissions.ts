import { setTimeout as sleep } from "node:timers/promises";
import type { Caller } from "../auth/caller.ts";
import { type Context, collections } from "../context.ts";
import type { Device } from "../device.ts";
import { NotFoundError, ServiceError, ValidationError } from "../errors.ts";
import { newId } from "../ids.ts";
import { StoreConflictError, type Stored } from "../ports/store.ts";
import { createdAt } from "../timestamps.ts";
import {
  claimAttachments,
  deleteAttachments,
  fileIdsOf,
  releaseAttachments,
} from "./attachment-claims.ts";
import { adjustCount, type CounterRecord, writeCounter } from "./counters.ts";
import { accessFormToSubmit, formNotFound } from "./form-access.ts";
import type { FormRecord } from "./form-record.ts";
import {
  type FormSnapshot,
  formCounter,
  formSnapshot,
  formVersionCount,
} from "./form-snapshots.ts";
import { type QuotaReservation, takeQuota } from "./quotas.ts";
import { searchWordsOf } from "./search-words.ts";
import { runPostSubmissionActions } from "./submission-actions.ts";
import type { SubmissionRecord, SubmittedField } from "./submission-record.ts";
import { checkSubmittedValues } from "./submission-values.ts";
import { thanksPageOf } from "./thanks-page.ts";
import { enqueueSubmissionCreated } from "./webhook-outbox.ts";
import type { WebhookRecord } from "./webhooks.ts";

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
 * The form and its webhooks come from this instance's snapshots when the form's version in
 * its counter record says they are current (form-snapshots.ts); the slot is taken by a
 * write of that counter conditional on the etag read, so a form changed meanwhile makes it
 * start over with the new form.
 */
export async function createSubmission(
  ctx: Context,
  caller: Caller | null,
  formId: string,
  input: SubmissionInput,
  device: Device,
) {
  const draft = input.is_draft_submission ?? false;
  let checked: CheckedPost | undefined;
  try {
    for (let attempt = 1; ; attempt++) {
      const key = formCounter(formId);
      const counter = await ctx.store.get<CounterRecord>(key.collection, key.partition, key.id);
      const version = counter ? (counter.record.counts[formVersionCount] ?? 0) : null;
      const snapshot = await formSnapshot(ctx, formId, version);
      if (!snapshot) throw formNotFound();
      if (checked?.snapshot !== snapshot) {
        await checked?.monthly.giveBack();
        checked = undefined;
        checked = await checkPost(ctx, caller, formId, snapshot, input.form_fields, draft);
      }
      const slot = await takeSlot(ctx, formId, counter, checked.limit);
      if (slot === "full") {
        throw new ServiceError(
          "form_closed",
          "This form has received all the submissions it takes",
        );
      }
      if (slot === "taken") {
        // The counter this S2 made holds version 0: no change came between (form-snapshots.ts).
        if (!counter) ctx.formSnapshots.set(formId, 0, snapshot);
        break;
      }
      if (attempt === slotAttempts) throw new StoreConflictError("etag", "form counter contended");
      // A little jitter keeps a crowd of posters from colliding in lock step.
      await sleep(Math.random() * Math.min(attempt, 20));
    }
  } catch (error) {
    await checked?.monthly.giveBack();
    throw error;
  }
  const { snapshot, values, monthly } = checked;
  const { form } = snapshot;
  const id = newId();
  let claimed: string[] = [];
  const submission: SubmissionRecord = {
    form_id: formId,
    stale_form_name: form.form_configuration.settings.form_name,
    created_by_verified_email_address: caller?.email ?? "",
    created_by_device: device,
    form_fields: values,
    search_words: searchWordsOf(form.form_definition, values),
    is_draft_submission: draft,
    id,
    ...createdAt(ctx.now()),
  };
  try {
    claimed = await claimAttachments(ctx, formId, id, form.form_definition, values);
    await storeSubmission(ctx, submission, snapshot.webhooks);
  } catch (error) {
    await releaseAttachments(ctx, formId, claimed);
    await adjustCount(ctx, formCounter(formId), "submissions", -1);
    await monthly.giveBack();
    throw error;
  }
  const flags = await runPostSubmissionActions(ctx, form, submission);
  return {
    id,
    message: "Submission posted successfully",
    ...thanksPageOf(form),
    cloud_database_post_expected_but_failed: flags.cloud_database_post_expected_but_failed,
    email_address_post_expected_but_failed: flags.email_address_post_expected_but_failed,
    actionSuccessful: true,
  };
}

const slotAttempts = 200;

/** A post checked against one snapshot of its form, with the owner's monthly quota taken. */
interface CheckedPost {
  snapshot: FormSnapshot;
  values: SubmittedField[];
  /** The form's `max_total_submissions`, or infinity. */
  limit: number;
  monthly: QuotaReservation;
}

/** Checks a post against the form as `snapshot` has it, then takes the monthly quota. */
async function checkPost(
  ctx: Context,
  caller: Caller | null,
  formId: string,
  snapshot: FormSnapshot,
  fields: SubmittedField[],
  draft: boolean,
): Promise<CheckedPost> {
  const { form } = await accessFormToSubmit(ctx, caller, formId, snapshot);
  const limits = (form.form_configuration.quantitylimitsettings ?? {}) as QuantityLimitSettings;
  if (limits.closes_at_utc && Date.parse(limits.closes_at_utc) <= ctx.now().getTime()) {
    throw new ServiceError("form_closed", "This form is closed to new submissions");
  }
  const values = await checkSubmittedValues(
    ctx,
    form.form_definition,
    fields,
    draft,
    form.owner_user_id,
  );
  const limit = limits.max_total_submissions ?? Number.POSITIVE_INFINITY;
  const monthly = await takeQuota(ctx, form.owner_user_id, "monthly_form_submissions");
  return { snapshot, values, limit, monthly };
}

/**
 * Adds one to the form's submission count, written conditionally on the counter as read
 * (`null`: none yet). @returns "full" past `limit`, "conflict" when the counter changed.
 */
async function takeSlot(
  ctx: Context,
  formId: string,
  counter: Stored<CounterRecord> | null,
  limit: number,
): Promise<"taken" | "full" | "conflict"> {
  const next = (counter?.record.counts.submissions ?? 0) + 1;
  if (next > limit) return "full";
  const counts = { ...counter?.record.counts, submissions: next };
  return (await writeCounter(ctx, formCounter(formId), counter, counts)) ? "taken" : "conflict";
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
  if (record.is_draft_submission && !draft) {
    await enqueueSubmissionCreated(ctx, next);
    // S6 answers no flags: a failed first attempt is only retried from the outbox.
    await runPostSubmissionActions(ctx, form, next);
  }
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
 * Writes a new submission and, unless it is a draft, queues its deliveries to `webhooks` before
 * anyone is told it exists; if queueing fails, the submission is taken back.
 */
async function storeSubmission(
  ctx: Context,
  submission: SubmissionRecord,
  webhooks: readonly WebhookRecord[],
) {
  await ctx.store.create(collections.submissions, submission.form_id, submission);
  if (submission.is_draft_submission) return;
  try {
    await enqueueSubmissionCreated(ctx, submission, webhooks);
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
