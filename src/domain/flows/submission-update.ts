/**
 * S6: an edit of a stored submission, written in one `Store.batch` with the inventory it
 * moves, so that a crash leaves the form's inventory counts equal to what the stored
 * submissions took (inventory.ts).
 */

import { ValidationError } from "../../kernel/errors.ts";
import type { BatchOp, Stored } from "../../ports/store.ts";
import { uploadersGiveBack } from "../attachments/address-uploads.ts";
import {
  bytesOf,
  type Claimable,
  claimedRecord,
  claimOps,
  fileIdsOf,
  readClaimable,
} from "../attachments/attachment-claims.ts";
import { readAttachments, removalOps } from "../attachments/attachment-removal.ts";
import { unclaimedBytesCount } from "../attachments/unclaimed-uploads.ts";
import { type AuditSource, auditOp, systemSource } from "../audit/index.ts";
import type { Context } from "../context.ts";
import { formNotFound } from "../forms/form-access.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { formCounter, formSnapshot, readFormCounter, versionOf } from "../forms/form-snapshots.ts";
import { batchAgain, countOps } from "../quotas/count-changes.ts";
import { counterOp } from "../quotas/counters.ts";
import { collections } from "../records/collections.ts";
import { type IdempotentRequest, keyOps } from "../records/idempotency-keys.ts";
import type {
  AttachmentRecord,
  SubmissionInput,
  SubmissionRecord,
} from "../records/submission-record.ts";
import { webhooksFor } from "../records/webhook-record.ts";
import { compileRules, type FormRules } from "../settings/form-rules.ts";
import { countsAfterRetake, inventoryAfterEdit, inventoryHeld } from "../settings/inventory.ts";
import {
  respondentIndexOps,
  respondentKeysOf,
  withRespondentKeys,
} from "../submissions/respondent-index.ts";
import { searchWordsOf } from "../submissions/search-words.ts";
import { withHistory } from "../submissions/submission-history.ts";
import { readSubmission } from "../submissions/submission-reading.ts";
import { checkSubmittedValues } from "../submissions/submission-values.ts";
import { type PlannedActions, planPostSubmissionActions } from "../webhooks/submission-actions.ts";
import { submissionEventOps } from "../webhooks/webhook-outbox.ts";

/**
 * S6: replaces the given fields' values and may clear the draft flag. The submission's
 * replace, conditional on its etag as read, goes in one `Store.batch` with, when the
 * inventory it holds changes or it stops being a draft, the form's counter conditional on its
 * etag (what it held given back, what it now chooses taken) and, for a draft that becomes a
 * submission, its webhook deliveries and the form's actions (submission-actions.ts). A
 * batch that loses a race (an S2, S6 or S7 moved the counter, or another S6 this
 * submission) reads both again and applies the edit to what it reads, as S2 does
 * (`batchAgain`). The same batch claims new files (their bytes taken off the form's
 * unclaimed count) and deletes the attachment records of files dropped from a file field
 * (their bytes given back to the owner's storage quota); their blobs are deleted after it.
 * The batch also appends the edit's audit entry by `source` (docs/design.md §25).
 */
export async function updateSubmission(
  ctx: Context,
  form: FormRecord,
  submissionId: string,
  input: SubmissionInput,
  editor: { userId: string },
  idempotency?: IdempotentRequest,
  source: AuditSource = systemSource,
) {
  const answer = {
    message: "Form submission has been updated successfully",
    form_submission_item_updated: true,
  };
  const rules = compileRules(form);
  let stored = await readSubmission(ctx, form.id, submissionId);
  let written: (Awaited<ReturnType<typeof updateOps>> & Pick<EditedFiles, "removed">) | undefined;
  await batchAgain(
    ctx,
    async (attempt) => {
      if (attempt > 1) stored = await readSubmission(ctx, form.id, submissionId);
      const edited = withHistory(
        stored.record,
        await editedRecord(ctx, form, rules, stored.record, input),
        editor.userId,
      );
      const files = await filesOf(ctx, form, stored.record, edited);
      const next = withHeld(stored.record, edited, files);
      const update = await updateOps(ctx, form, rules, stored, next, files);
      written = { ...update, removed: files.removed };
      const audit = await auditOp(ctx, form.id, source, "submission_updated", [submissionId]);
      const ops = [...update.ops, audit];
      return idempotency ? [...ops, ...keyOps(ctx, idempotency, answer)] : ops;
    },
    undefined,
    idempotency !== undefined,
  );
  const { removed, webhooks, actions } = written as NonNullable<typeof written>;
  await afterUpdate(ctx, form, removed, webhooks, actions);
  return answer;
}

/** The files an S6 claims and the attachment records of the files it drops, as read. */
interface EditedFiles {
  claims: Claimable[];
  removed: Stored<AttachmentRecord>[];
  /** The ids of the files the edited submission names. */
  kept: Set<string>;
}

/**
 * Reads the files `next` newly names (a 400 when another submission holds one) and the
 * attachments of the files `record` named that `next` no longer does.
 */
async function filesOf(
  ctx: Context,
  form: FormRecord,
  record: SubmissionRecord,
  next: SubmissionRecord,
): Promise<EditedFiles> {
  const { form_definition } = form;
  const claims = await readClaimable(ctx, form.id, record.id, form_definition, next.form_fields);
  const kept = new Set(fileIdsOf(form_definition, next.form_fields));
  const dropped = fileIdsOf(form_definition, record.form_fields).filter((id) => !kept.has(id));
  const removed = await readAttachments(ctx, form.id, record.id, dropped);
  return { claims, removed, kept };
}

/**
 * `next` with the attachments it holds (`attachments_held`): those of `record` it keeps, and
 * those it claims as the claim leaves them. A record stored before they were kept stays
 * without them (S5 reads its attachments).
 */
function withHeld(
  record: SubmissionRecord,
  next: SubmissionRecord,
  { claims, kept }: EditedFiles,
): SubmissionRecord {
  if (!record.attachments_held) return next;
  const at = next.modified_date_utc;
  const attachments_held = [
    ...record.attachments_held.filter((file) => kept.has(file.id)),
    ...claims.map((claim) => claimedRecord(claim.record, record.id, at)),
  ];
  return { ...next, attachments_held };
}

/** The record `input` makes of `record`: values checked, inventory it would take. */
async function editedRecord(
  ctx: Context,
  form: FormRecord,
  rules: FormRules,
  record: SubmissionRecord,
  input: SubmissionInput,
): Promise<SubmissionRecord> {
  if (input.is_draft_submission === true && !record.is_draft_submission) {
    throw new ValidationError("A submission that is no longer a draft cannot become one", [
      { path: "is_draft_submission", message: "can only be cleared" },
    ]);
  }
  const draft = input.is_draft_submission ?? record.is_draft_submission;
  const merged = new Map(record.form_fields.map((f) => [f.unique_system_name, f]));
  for (const field of input.form_fields) merged.set(field.unique_system_name, field);
  const values = await checkSubmittedValues(ctx, form, [...merged.values()], draft);
  return withRespondentKeys(
    {
      ...record,
      form_fields: values,
      search_words: searchWordsOf(form.form_definition, values),
      is_draft_submission: draft,
      inventory_taken: inventoryAfterEdit(rules, record, values, draft),
      modified_date_utc: ctx.now().toISOString(),
    },
    respondentKeysOf(form, values),
  );
}

/**
 * The batch of an S6 from `stored` to `next`, and the webhooks and actions it announces `next`
 * to: a draft that becomes a submission is announced as created, with the form's actions; an
 * edit of a submission that is no draft, as updated, to the webhooks called for that
 * (docs/design.md §7). The counter is read only when needed, and written only when the
 * edit moves inventory or claims files, or announces to a webhook: then on its etag, so that a
 * webhook added since the read moves the form's version and the batch is made again with it
 * (form-snapshots.ts). A plain edit no webhook hears of does not contend with the form's S2s.
 * @throws {ValidationError} when a newly chosen option is sold out.
 */
async function updateOps(
  ctx: Context,
  form: FormRecord,
  rules: FormRules,
  stored: Stored<SubmissionRecord>,
  next: SubmissionRecord,
  { claims, removed }: EditedFiles,
) {
  const ops: BatchOp[] = [
    {
      op: "replace",
      collection: collections.submissions,
      partition: form.id,
      record: next,
      ifMatch: stored.etag,
    },
    ...(await removalOps(ctx, form.id, form.owner_user_id, removed, false)),
    ...claimOps(stored.record.id, claims, next.modified_date_utc),
    // The respondent index follows the addresses it now holds (respondent-index.ts).
    ...respondentIndexOps(
      form.id,
      stored.record.id,
      stored.record.respondent_keys,
      next.respondent_keys,
    ),
    // The claimed files' bytes leave their uploaders' counts (address-uploads.ts).
    ...(await countOps(ctx, uploadersGiveBack(claims.map(({ record }) => record)))),
  ];
  const held = inventoryHeld(rules, stored.record);
  const wanted = next.inventory_taken ?? [];
  const becomes = stored.record.is_draft_submission && !next.is_draft_submission;
  const edits = !stored.record.is_draft_submission;
  const claimed = bytesOf(claims);
  const none = { ops, webhooks: [], actions: undefined };
  if (held.length === 0 && wanted.length === 0 && !becomes && !edits && claimed === 0) {
    return none;
  }
  const counter = await readFormCounter(ctx, form.id);
  let counts = countsAfterRetake(counter?.record.counts ?? {}, rules, held, wanted);
  if (claimed > 0 && counter) {
    // The claimed files' bytes leave the form's unclaimed count in the same write.
    counts ??= { ...counter.record.counts };
    counts[unclaimedBytesCount] = Math.max(0, (counts[unclaimedBytesCount] ?? 0) - claimed);
  }
  const snapshot = becomes || edits ? await formSnapshot(ctx, form.id, versionOf(counter)) : null;
  if ((becomes || edits) && !snapshot) throw formNotFound();
  const event = becomes ? "form_submission.created" : "form_submission.updated";
  const webhooks = snapshot ? webhooksFor(snapshot.webhooks, event) : [];
  // Only giving back from a counter that is gone (the form being deleted) recreates nothing.
  if (counts && (counter || wanted.length > 0)) {
    ops.push(counterOp(formCounter(form.id), counter, counts));
  } else if ((becomes || webhooks.length > 0) && counter) {
    // Unchanged, but written on its etag: see above.
    ops.push(counterOp(formCounter(form.id), counter, counter.record.counts));
  }
  if (!snapshot) return none;
  ops.push(...submissionEventOps(ctx, event, next, webhooks));
  if (!becomes) return { ops, webhooks, actions: undefined };
  const actions = planPostSubmissionActions(ctx, form, next);
  ops.push(...actions.ops);
  return { ops, webhooks, actions };
}

/** What follows a written S6: its announcements sent, and dropped files deleted. */
async function afterUpdate(
  ctx: Context,
  form: FormRecord,
  removed: Stored<AttachmentRecord>[],
  webhooks: readonly unknown[],
  actions: PlannedActions | undefined,
) {
  // A draft that becomes a submission is announced as new, an edit as updated (docs/design.md §7).
  if (webhooks.length > 0) ctx.nudgeWebhooks();
  // S6 answers no flags: a failed first attempt is only retried from the outbox.
  await actions?.attempt?.();
  // A blob without its record counts nowhere: the records went in the batch.
  for (const { record: file } of removed) await ctx.blobs?.delete(form.id, file.id);
}
