import { queryAll } from "../../ports/query-all.ts";
import type { BatchOp } from "../../ports/store.ts";
import type { Caller } from "../accounts/caller.ts";
import { partnerIdOf } from "../accounts/customers.ts";
import { type AuditSource, auditOp, systemSource } from "../audit/index.ts";
import type { Context } from "../context.ts";
import { accessForm, requireRole } from "../forms/form-access.ts";
import type { FormRecord, FormUserRecord } from "../forms/form-record.ts";
import {
  formCounter,
  formSnapshotsOf,
  formVersionCount,
  readFormCounter,
  versionOf,
} from "../forms/form-snapshots.ts";
import { emailPrincipal, ownerPrincipal, removeMembership } from "../forms/memberships.ts";
import { batchAgain, type CountChange, countOps } from "../quotas/count-changes.ts";
import { counterOp } from "../quotas/counters.ts";
import { quotaCounter } from "../quotas/quotas.ts";
import { collections } from "../records/collections.ts";
import type { AttachmentRecord } from "../records/submission-record.ts";
import { indexedFormsPartition } from "../submissions/respondent-backfill.ts";
import { loggedActions } from "../webhooks/action-deliveries.ts";
import { actionLogId } from "../webhooks/webhook-outbox.ts";

/**
 * Deleting a form (F3) so that the owner's quotas equal what is stored after a crash at any
 * moment. ONE `Store.batch` deletes the form record, gives back what it held of
 * the owner's quotas (the form, its admin collaborators, its files' bytes), moves the
 * form's version in its counter, on the counter's etag (so that an S2, S3 or S7 that moved
 * it meanwhile makes the batch start over with what it wrote) and leaves a note that the form is being deleted.
 * The rest (its collaborators, submissions, files, webhooks and logs) is then deleted
 * partition by partition, and the note last; a crash in between leaves the note, and the
 * sweep finishes the deletion ({@link finishFormDeletions}). What the rest holds counts
 * for nothing once the form record is gone: nobody can reach it.
 */

/** Where the notes of forms being deleted are kept, in `service_state`. */
const deletionsPartition = "form-deletions";

/** The note of a form being deleted. */
interface FormDeletionNote {
  /** The form's id. */
  id: string;
  created_date_utc: string;
}

/**
 * Deletes the form `formId` and everything it holds but its audit trail, which records the
 * deletion by `source` in the same batch and outlives it (docs/design.md §25).
 * @returns whether this call deleted it (`false` when it was gone already).
 */
export async function deleteFormAndRecords(
  ctx: Context,
  formId: string,
  source: AuditSource = systemSource,
): Promise<boolean> {
  const written = await batchAgain(ctx, () => deletionOps(ctx, formId, source));
  formSnapshotsOf(ctx).forget(formId);
  if (!written) return false;
  await finishFormDeletion(ctx, formId);
  return true;
}

/** The batch that deletes the form record and gives back its quotas; `null` when it is gone. */
async function deletionOps(
  ctx: Context,
  formId: string,
  source: AuditSource,
): Promise<BatchOp[] | null> {
  const stored = await ctx.store.get<FormRecord>(collections.forms, formId, formId);
  if (!stored) return null;
  const counter = await readFormCounter(ctx, formId);
  const note: FormDeletionNote = { id: formId, created_date_utc: ctx.now().toISOString() };
  return [
    {
      op: "delete",
      collection: collections.forms,
      partition: formId,
      id: formId,
      ifMatch: stored.etag,
      previous: stored.record,
    },
    // The version moves in the same write: an S2 holding the form (on any instance) fails its
    // batch or misses its snapshot, reads the form again and finds it gone.
    counterOp(formCounter(formId), counter, {
      ...counter?.record.counts,
      [formVersionCount]: (versionOf(counter) ?? 0) + 1,
    }),
    ...(await countOps(ctx, await quotaChanges(ctx, stored.record))),
    {
      op: "create",
      collection: collections.serviceState,
      partition: deletionsPartition,
      record: note,
    },
    await auditOp(ctx, formId, source, "form_deleted", [formId]),
  ];
}

/**
 * What a partner customer's form gives back of its owner's quotas: the form, its admin
 * collaborators, and the bytes of its files (uploads still streaming included: their hold
 * is their record). Local accounts have no quotas.
 */
async function quotaChanges(ctx: Context, form: FormRecord): Promise<CountChange[]> {
  const owner = form.owner_user_id;
  if (!partnerIdOf(owner)) return [];
  const users = await queryAll<FormUserRecord>(ctx.store, collections.formUsers, form.id);
  const admins = users.filter(
    (user) => user.has_account_management && user.granted_to_user_id !== owner,
  );
  const files = await queryAll<AttachmentRecord>(ctx.store, collections.attachments, form.id);
  const bytes = files.reduce((sum, file) => sum + file.file_size, 0);
  return [
    { key: quotaCounter(owner, "total_forms"), deltas: { used: -1 } },
    { key: quotaCounter(owner, "total_admin_collaborators"), deltas: { used: -admins.length } },
    { key: quotaCounter(owner, "total_file_storage"), deltas: { used: -bytes } },
  ];
}

/**
 * Deletes what a deleted form held, then its note. Each step may run again (after a crash,
 * or from two instances at once): deleting what is gone already does nothing.
 */
async function finishFormDeletion(ctx: Context, formId: string) {
  const users = await queryAll<FormUserRecord>(ctx.store, collections.formUsers, formId);
  for (const user of users) {
    const principal = user.granted_to_user_id
      ? ownerPrincipal(user.granted_to_user_id)
      : emailPrincipal(user.granted_to_email_address ?? "");
    await removeMembership(ctx, principal, formId);
  }
  await ctx.store.deletePartition(collections.formUsers, formId);
  await ctx.store.deletePartition(collections.submissions, formId);
  await ctx.store.deletePartition(collections.attachments, formId);
  await ctx.store.deletePartition(collections.respondentIndex, formId);
  await ctx.store.deletePartition(collections.idempotencyKeys, formId);
  await ctx.store.deletePartition(collections.formCounters, formId);
  const webhooks = await queryAll(ctx.store, collections.webhooks, formId);
  for (const webhook of webhooks) {
    await ctx.store.deletePartition(collections.webhookDeliveries, webhook.id);
  }
  await ctx.store.deletePartition(collections.webhooks, formId);
  for (const action of loggedActions) {
    await ctx.store.deletePartition(collections.webhookDeliveries, actionLogId(action, formId));
  }
  await ctx.blobs?.deleteContainer(formId);
  // Its respondent index's marker (respondent-backfill.ts), before the note as the rest.
  await ctx.store.delete(collections.serviceState, indexedFormsPartition, formId);
  await ctx.store.delete(collections.serviceState, deletionsPartition, formId);
}

/** A note this recent may belong to an F3 still deleting its form's records. */
const deletionSettling = 60_000;

/**
 * Finishes the deletions of forms that a crash cut short (part of the sweep).
 * @returns how many it finished.
 */
export async function finishFormDeletions(ctx: Context): Promise<number> {
  const notes = await queryAll<FormDeletionNote>(
    ctx.store,
    collections.serviceState,
    deletionsPartition,
  );
  const now = ctx.now().getTime();
  const stale = notes.filter((note) => now - Date.parse(note.created_date_utc) >= deletionSettling);
  for (const note of stale) await finishFormDeletion(ctx, note.id);
  return stale.length;
}

/**
 * Deletes a form with its users, submissions, attachments and their files. Owner or account
 * manager. The form record goes first, with what it held of the owner's quotas, so that
 * from then on the form is gone for everyone, whatever happens to the rest (see above).
 */
export async function deleteForm(
  ctx: Context,
  caller: Caller,
  formId: string,
  source: AuditSource,
) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  await deleteFormAndRecords(ctx, formId, source);
}
