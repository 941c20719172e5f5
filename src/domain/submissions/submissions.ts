import { NotFoundError } from "../../kernel/errors.ts";
import type { Stored } from "../../ports/store.ts";
import type { Caller } from "../accounts/caller.ts";
import { fileIdsOf } from "../attachments/attachment-claims.ts";
import { readAttachments, removalOps } from "../attachments/attachment-removal.ts";
import { type Context, collections } from "../context.ts";
import type { Device } from "../device.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { formCounter, readFormCounter } from "../forms/form-snapshots.ts";
import { batchAgain, batchInTurns } from "../quotas/count-changes.ts";
import { counterOp } from "../quotas/counters.ts";
import { compileRules } from "../settings/form-rules.ts";
import { inventoryHeld } from "../settings/inventory.ts";
import { thanksPageOf } from "../settings/sections/thanks-page.ts";
import { noFailedActions } from "../webhooks/submission-actions.ts";
import { newPost, postOps, type WrittenPost } from "./submission-post.ts";
import type { AttachmentRecord, SubmissionRecord, SubmittedField } from "./submission-record.ts";

/** What S2 and S6 take (design.md §4). */
export interface SubmissionInput {
  form_fields: SubmittedField[];
  is_draft_submission?: boolean;
}

/**
 * S2: stores a submission to a form open to the caller. The form's counter (its submission
 * count and version, form-snapshots.ts) and, for a partner customer's form, the owner's
 * monthly quota counter are read; then the raised counters, the submission, its webhook
 * deliveries and its actions (submission-actions.ts) are written in ONE `Store.batch`,
 * conditional on the counters' etags, and made again from fresh reads when one moved
 * (`batchAgain`). So `max_total_submissions` and the quota hold under concurrent posts, a
 * form changed meanwhile makes the post start over with the new form, and a crash leaves
 * the counts equal to the records (all or nothing; see the Store port for Cosmos DB across
 * partitions). Files are read with the form's checks (or, on the first attempt, taken as
 * this instance settled them: settled-uploads.ts) and claimed in the same batch, each on
 * the etag read, so no claim outlives a failed or cut-short S2; the batch's counter write
 * also takes their bytes off the form's cap on unclaimed uploads (unclaimed-uploads.ts).
 */
export async function createSubmission(
  ctx: Context,
  caller: Caller | null,
  formId: string,
  input: SubmissionInput,
  device: Device,
) {
  const post = newPost(caller, formId, input, device);
  // Posts to one form in this process take turns on its counter (counter-turns.ts):
  // otherwise concurrent ones all read one etag and all but one retry.
  await batchInTurns(ctx, formId, (attempt) => postOps(ctx, post, attempt));
  const { snapshot, fresh, actions } = post.written as WrittenPost;
  for (const { record } of post.checked?.claims ?? []) ctx.settledUploads.delete(record.id);
  // The counter this S2 made holds version 0: no change came between (form-snapshots.ts).
  if (fresh) ctx.formSnapshots.set(formId, 0, snapshot);
  if (!post.draft && snapshot.webhooks.length > 0) ctx.nudgeWebhooks();
  const flags = actions.attempt ? await actions.attempt() : noFailedActions;
  return {
    id: post.id,
    message: "Submission posted successfully",
    ...thanksPageOf(snapshot.form),
    cloud_database_post_expected_but_failed: flags.cloud_database_post_expected_but_failed,
    email_address_post_expected_but_failed: flags.email_address_post_expected_but_failed,
    actionSuccessful: true,
  };
}

/**
 * S7: deletes a submission and frees its slot and inventory on the form, and deletes its
 * attachment records and gives their bytes back to the owner's storage quota, in one
 * `Store.batch` conditional on everything as read (a crash leaves all or nothing); then
 * deletes their files.
 */
export async function deleteSubmission(ctx: Context, form: FormRecord, submissionId: string) {
  let stored: Stored<SubmissionRecord> | null = await readSubmission(ctx, form.id, submissionId);
  let removed: Stored<AttachmentRecord>[] = [];
  const rules = compileRules(form);
  const written = await batchAgain(ctx, async (attempt) => {
    if (attempt > 1) {
      stored = await ctx.store.get<SubmissionRecord>(
        collections.submissions,
        form.id,
        submissionId,
      );
    }
    // Gone meanwhile: another S7 deleted it and gave everything back.
    if (!stored) return null;
    const counter = await readFormCounter(ctx, form.id);
    const counts: Record<string, number> = { ...counter?.record.counts };
    // What the submission took, not what the current settings imply (inventory.ts).
    for (const name of ["submissions", ...inventoryHeld(rules, stored.record)])
      counts[name] = Math.max(0, (counts[name] ?? 0) - 1);
    const files = fileIdsOf(form.form_definition, stored.record.form_fields);
    removed = await readAttachments(ctx, form.id, submissionId, files);
    return [
      {
        op: "delete",
        collection: collections.submissions,
        partition: form.id,
        id: submissionId,
        ifMatch: stored.etag,
        previous: stored.record,
      },
      counterOp(formCounter(form.id), counter, counts),
      // Its files and the storage they give back go with it: the quota stays equal to the records.
      ...(await removalOps(ctx, form.id, form.owner_user_id, removed, false)),
    ];
  });
  if (written) for (const { record } of removed) await ctx.blobs?.delete(form.id, record.id);
  return {
    message: "Form submission has been deleted successfully",
    form_submission_item_deleted: written !== null,
  };
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
