import type { Stored } from "../../ports/store.ts";
import { fileIdsOf } from "../attachments/attachment-claims.ts";
import { readAttachments, removalOps } from "../attachments/attachment-removal.ts";
import { type AuditAction, type AuditSource, auditOp, systemSource } from "../audit/index.ts";
import type { Context } from "../context.ts";
import { formNotFound } from "../forms/form-access.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { formCounter, formSnapshot, readFormCounter, versionOf } from "../forms/form-snapshots.ts";
import { batchInTurns } from "../quotas/count-changes.ts";
import { counterOp } from "../quotas/counters.ts";
import { collections } from "../records/collections.ts";
import type { AttachmentRecord, SubmissionRecord } from "../records/submission-record.ts";
import { compileRules } from "../settings/form-rules.ts";
import { inventoryHeld } from "../settings/inventory.ts";
import { respondentIndexOps } from "../submissions/respondent-index.ts";
import { readSubmission } from "../submissions/submission-reading.ts";
import { purgeDeliveries } from "../webhooks/delivery-purge.ts";
import { submissionEventOps } from "../webhooks/webhook-outbox.ts";

/**
 * S7: deletes a submission and frees its slot and inventory on the form, and deletes its
 * attachment records and gives their bytes back to the owner's storage quota, in one
 * `Store.batch` conditional on everything as read (a crash leaves all or nothing), with a
 * delivery of `form_submission.deleted` to each webhook called for it (docs/design.md §7):
 * the counter is written on its etag, so the webhooks are those of the form's version as
 * read. Its respondent index records go in the batch too (respondent-index.ts), and an audit
 * entry of `action` by `source` (docs/design.md §25; by default `submission_deleted` by
 * `system`; with `action` null none, for a caller that records one entry for many
 * deletions itself). Then deletes their files, and its deliveries and their outbox entries
 * (delivery-purge.ts). S7, an erasure and retention all delete a submission through this
 * one function.
 * @throws {NotFoundError} when the form has no such submission.
 */
export async function deleteSubmission(
  ctx: Context,
  form: FormRecord,
  submissionId: string,
  source: AuditSource = systemSource,
  action: AuditAction | null = "submission_deleted",
) {
  let stored: Stored<SubmissionRecord> | null = await readSubmission(ctx, form.id, submissionId);
  let removed: Stored<AttachmentRecord>[] = [];
  let announced = false;
  let webhookIds: string[] = [];
  const rules = compileRules(form);
  // In turn with the form's S2s (counter-turns.ts), so that neither makes the other start over.
  const written = await batchInTurns(ctx, form.id, async (attempt) => {
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
    // What the submission took, not what the current settings imply (inventory.ts); a
    // payment that expired or failed gave its slot back already (docs/design.md §26).
    const slot = stored.record.payment_released ? [] : ["submissions"];
    for (const name of [...slot, ...inventoryHeld(rules, stored.record)])
      counts[name] = Math.max(0, (counts[name] ?? 0) - 1);
    const files = fileIdsOf(form.form_definition, stored.record.form_fields);
    removed = await readAttachments(ctx, form.id, submissionId, files);
    const snapshot = await formSnapshot(ctx, form.id, versionOf(counter));
    if (!snapshot) throw formNotFound();
    const event = submissionEventOps(
      ctx,
      "form_submission.deleted",
      stored.record,
      snapshot.webhooks,
    );
    announced = event.length > 0;
    webhookIds = snapshot.webhooks.map(({ id }) => id);
    const audit = action ? [await auditOp(ctx, form.id, source, action, [submissionId])] : [];
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
      ...respondentIndexOps(form.id, submissionId, stored.record.respondent_keys, []),
      // Its files and the storage they give back go with it: the quota stays equal to the records.
      ...(await removalOps(ctx, form.id, form.owner_user_id, removed, false)),
      ...event,
      ...audit,
    ];
  });
  if (written && announced) ctx.nudgeWebhooks();
  if (written) {
    for (const { record } of removed) await ctx.blobs?.delete(form.id, record.id);
    // After the batch: the deliveries live in other partitions (docs/design.md §14).
    await purgeDeliveries(ctx, form.id, submissionId, webhookIds);
  }
  return {
    message: "Form submission has been deleted successfully",
    form_submission_item_deleted: written !== null,
  };
}
