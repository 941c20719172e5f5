import { ServiceError } from "../../kernel/errors.ts";
import type { Context } from "../context.ts";

/**
 * The cap on a form's unclaimed uploads: the bytes of files uploaded (S3) that no
 * submission holds yet. Without it, anonymous uploads that are never submitted take the
 * owner's storage quota (and the disk) for the whole grace period, and the files of real
 * submissions no longer fit. The count lives in the form's counter record, beside its
 * submission count and version, and moves only in conditional writes, in the batch of the
 * records it counts, so concurrent uploads never pass the cap together. An upload counts
 * from S3 (its hold, upload-holds.ts) until a submission claims it or the sweep removes it.
 */

/**
 * The count of the form's counter record (`formCounter` in form-snapshots.ts) that holds its unclaimed upload
 * bytes: S2 reads that record anyway, and gives back the bytes of the files it claims in
 * the same conditional write that takes its slot (`flows/submission-post.ts`).
 */
export const unclaimedBytesCount = "unclaimed_bytes";

/**
 * The most bytes a form's unclaimed uploads may hold: `limits.unclaimedUploadBytes`, and for
 * an owner with a storage quota (partner customers) at most `limits.unclaimedUploadQuotaShare`
 * of that quota, so that the rest of it stays for files that submissions hold.
 */
export function unclaimedCapOf(ctx: Context, storageQuota: number): number {
  const fixed = ctx.limits.unclaimedUploadBytes;
  if (!Number.isFinite(storageQuota)) return fixed;
  return Math.min(fixed, Math.floor(storageQuota * ctx.limits.unclaimedUploadQuotaShare));
}

/** The 413 of a form whose unclaimed uploads hold `cap` bytes. */
export function capReached(cap: number): ServiceError {
  return new ServiceError(
    "payload_too_large",
    `This form holds as many uploaded files waiting for a submission as it may (${cap} bytes); submit the files already uploaded, or try again later`,
  );
}
