import type { BatchOp, Stored } from "../../ports/store.ts";
import { partnerIdOf } from "../accounts/customers.ts";
import type { Context } from "../context.ts";
import { formCounter } from "../forms/form-snapshots.ts";
import { type CountChange, countOps } from "../quotas/count-changes.ts";
import { quotaCounter } from "../quotas/quotas.ts";
import { collections } from "../records/collections.ts";
import type { AttachmentRecord } from "../records/submission-record.ts";
import { uploadersGiveBack } from "./address-uploads.ts";
import { unclaimedBytesCount } from "./unclaimed-uploads.ts";

/**
 * Removing attachments so that the counts stay equal to the records after a crash: the
 * records' deletes and the bytes they give back go in one `Store.batch` (S6, S7, the
 * sweep); the files are deleted after it, since a file without a record counts nowhere.
 */

/**
 * Reads the attachments `ids` of a form that the submission `submissionId` holds, as they
 * are now; ids with no record, or held by no or another submission, are left out.
 */
export async function readAttachments(
  ctx: Context,
  formId: string,
  submissionId: string,
  ids: string[],
): Promise<Stored<AttachmentRecord>[]> {
  const found: Stored<AttachmentRecord>[] = [];
  for (const id of ids) {
    const stored = await ctx.store.get<AttachmentRecord>(collections.attachments, formId, id);
    if (stored?.record.submission_id === submissionId) found.push(stored);
  }
  return found;
}

/**
 * The batch ops that delete `attachments` (each conditional on its etag as read) and give
 * their bytes back: to the storage quota of `ownerUserId` (when a partner customer owns the
 * form), and to the form's unclaimed bytes and their uploaders' when `unclaimed` (they were
 * not claimed). The counter ops come first: the last op of a Cosmos DB batch applied op by
 * op needs no read.
 */
export async function removalOps(
  ctx: Context,
  formId: string,
  ownerUserId: string | null,
  attachments: Stored<AttachmentRecord>[],
  unclaimed: boolean,
): Promise<BatchOp[]> {
  const bytes = attachments.reduce((sum, { record }) => sum + record.file_size, 0);
  const changes: CountChange[] = [];
  if (ownerUserId && partnerIdOf(ownerUserId)) {
    const key = quotaCounter(ownerUserId, "total_file_storage");
    changes.push({ key, deltas: { used: -bytes } });
  }
  if (unclaimed) {
    changes.push(...uploadersGiveBack(attachments.map(({ record }) => record)));
    changes.push({ key: formCounter(formId), deltas: { [unclaimedBytesCount]: -bytes } });
  }
  const deletes = attachments.map(
    ({ record, etag }): BatchOp => ({
      op: "delete",
      collection: collections.attachments,
      partition: formId,
      id: record.id,
      ifMatch: etag,
    }),
  );
  return [...(await countOps(ctx, changes)), ...deletes];
}
