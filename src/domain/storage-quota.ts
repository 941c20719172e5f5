import { type Context, collections } from "../context.ts";
import { byteLimit } from "../http/multipart.ts";
import { queryAll } from "../ports/query-all.ts";
import { adjustCount, takeUpTo } from "./counters.ts";
import { customerOf, partnerIdOf } from "./customers.ts";
import type { FormRecord, FormUserRecord } from "./form-record.ts";
import { giveBackQuota, quotaCounter, quotaExceeded } from "./quotas.ts";
import type { AttachmentRecord } from "./submission-record.ts";

/**
 * The file storage quota and what a deleted form gives back. An upload's size is known only
 * once it is stored, so S3 reserves the most it may take (within what is left) before it
 * streams, stops the upload past that, and settles to the real size afterwards.
 */

/** Storage held for one upload. */
export interface StorageReservation {
  /**
   * Passes the file's bytes on, failing with a 413 past `limit`, or with `quota_exceeded`
   * past what is reserved when that is less: one byte count for both bounds.
   */
  cap(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array>;
  /**
   * Runs the upload. On success keeps exactly the bytes it stored, and gives the rest back;
   * on failure gives everything back.
   * @returns the size `store` answers.
   */
  settle(store: () => Promise<number>): Promise<number>;
  /** Gives back what is still held (after `settle`, the stored size). */
  giveBack(): Promise<void>;
}

/** The owner's file storage quota in bytes; infinite for accounts without quotas. */
export async function storageQuotaOf(ctx: Context, ownerUserId: string): Promise<number> {
  const customer = partnerIdOf(ownerUserId) ? await customerOf(ctx, ownerUserId) : null;
  return customer ? Number(customer.quota_custom_total_file_storage) : Number.POSITIVE_INFINITY;
}

/**
 * Reserves up to `most` bytes of the form owner's storage quota (`quota`, from
 * {@link storageQuotaOf}) for one upload: `most`, or what is left when less is.
 * @throws {ServiceError} `quota_exceeded` when nothing is left.
 */
export async function reserveFileStorage(
  ctx: Context,
  ownerUserId: string,
  quota: number,
  most: number,
): Promise<StorageReservation> {
  if (!Number.isFinite(quota)) return reservationOf(ctx, ownerUserId, quota, 0);
  const key = quotaCounter(ownerUserId, "total_file_storage");
  const taken = await takeUpTo(ctx, key, "used", most, quota);
  if (taken <= 0) throw quotaExceeded("total_file_storage", quota);
  return reservationOf(ctx, ownerUserId, quota, taken);
}

/** Gives back the storage of a form's deleted attachments to the form's owner. */
export async function giveBackFileStorage(ctx: Context, formId: string, bytes: number) {
  if (bytes <= 0) return;
  const form = await ctx.store.get<FormRecord>(collections.forms, formId, formId);
  if (form) await giveBackQuota(ctx, form.record.owner_user_id, "total_file_storage", bytes);
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

function reservationOf(
  ctx: Context,
  ownerUserId: string,
  quota: number,
  reserved: number,
): StorageReservation {
  let held = reserved;
  const change = async (delta: number) => {
    if (delta === 0 || !Number.isFinite(quota)) return;
    held += delta;
    await adjustCount(ctx, quotaCounter(ownerUserId, "total_file_storage"), "used", delta);
  };
  return {
    cap(body, limit) {
      if (!Number.isFinite(quota) || reserved >= limit) return body.pipeThrough(byteLimit(limit));
      const refusal = () => quotaExceeded("total_file_storage", quota);
      return body.pipeThrough(byteLimit(reserved, refusal));
    },
    async settle(store) {
      let size: number;
      try {
        size = await store();
      } catch (error) {
        await change(-held);
        throw error;
      }
      await change(size - held);
      return size;
    },
    giveBack: () => change(-held),
  };
}
