import { type Context, collections } from "../context.ts";
import { queryAll } from "../ports/query-all.ts";
import { customerOf, partnerIdOf } from "./customers.ts";
import type { FormRecord, FormUserRecord } from "./form-record.ts";
import { giveBackQuota } from "./quotas.ts";
import type { AttachmentRecord } from "./submission-record.ts";

/**
 * The file storage quota and what a deleted form gives back. An upload's size is known only
 * once it is stored, so S3 holds the most it may take (within what is left) before it
 * streams, stops the upload past that, and settles to the real size afterwards; the hold
 * is a record, written with the count in one batch (upload-holds.ts). The quota used is
 * the `file_size` of the owner's attachment records, holds included.
 */

/** The owner's file storage quota in bytes; infinite for accounts without quotas. */
export async function storageQuotaOf(ctx: Context, ownerUserId: string): Promise<number> {
  const customer = partnerIdOf(ownerUserId) ? await customerOf(ctx, ownerUserId) : null;
  return customer ? Number(customer.quota_custom_total_file_storage) : Number.POSITIVE_INFINITY;
}

/**
 * Gives back what a deleted form held of its owner's quotas: the form, its admin
 * collaborators (`users`, the form's user security records), and its files. Call it once,
 * after the form record is deleted and before its attachments are.
 */
export async function giveBackFormQuotas(ctx: Context, form: FormRecord, users: FormUserRecord[]) {
  const owner = form.owner_user_id;
  if (!partnerIdOf(owner)) return;
  await giveBackQuota(ctx, owner, "total_forms", 1);
  const admins = users.filter(
    (user) => user.has_account_management && user.granted_to_user_id !== owner,
  );
  await giveBackQuota(ctx, owner, "total_admin_collaborators", admins.length);
  const attachments = await queryAll<AttachmentRecord>(ctx.store, collections.attachments, form.id);
  const bytes = attachments.reduce((sum, attachment) => sum + attachment.file_size, 0);
  await giveBackQuota(ctx, owner, "total_file_storage", bytes);
}
