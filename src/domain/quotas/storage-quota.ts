import { customerOf, partnerIdOf } from "../accounts/customers.ts";
import type { Context } from "../context.ts";

/**
 * The file storage quota. An upload's size is known only
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
