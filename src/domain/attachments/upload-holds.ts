import { ServiceError } from "../../kernel/errors.ts";
import { fileTooLarge } from "../../kernel/incoming-file.ts";
import type { BatchOp, Stored, StoreRecord } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { formCounter, readFormCounter } from "../forms/form-snapshots.ts";
import { batchAgain, type CountChange, countOps } from "../quotas/count-changes.ts";
import { type CounterRecord, counterOp, counterToWrite } from "../quotas/counters.ts";
import { quotaCounter, quotaExceeded } from "../quotas/quotas.ts";
import { collections } from "../records/collections.ts";
import type { AttachmentRecord } from "../records/submission-record.ts";
import {
  addressCapOf,
  addressCapReached,
  uploaderChange,
  uploaderCounter,
} from "./address-uploads.ts";
import { uploadBucketOf, uploadNoteOf } from "./attachment-sweep.ts";
import { settledUploadsOf } from "./settled-uploads.ts";
import { capReached, unclaimedBytesCount, unclaimedCapOf } from "./unclaimed-uploads.ts";
import { newClaimToken, waitingWith } from "./waiting-uploads.ts";

/**
 * What an upload (S3) holds while it streams, kept crash-exact: the reservation is the
 * attachment record itself, marked `uploading`, with the bytes it holds as `file_size`.
 * It is created in ONE `Store.batch` with the raised counts (the owner's storage quota,
 * the form's unclaimed bytes, its uploader's: address-uploads.ts) and the sweep's upload
 * note; once the file is stored, one
 * batch makes it the attachment of the real size and settles the counts to it; a failed
 * upload deletes it and gives the counts back in one batch. So at any moment, crash or
 * not, the storage quota used equals the `file_size` of the owner's attachment records,
 * reservations included, and a reservation whose upload never finished is found by the
 * sweep through its note and given back (attachment-sweep.ts).
 */

/** An upload's hold on its bounds, as a record. */
export interface UploadHold {
  /** The most bytes the upload may store: what it holds. */
  held: number;
  /** The error past `held` bytes: of the bound that bites (a 413, or the storage quota). */
  refusal: () => ServiceError;
  /**
   * Makes the record the stored attachment of `size` bytes and settles the counts to it.
   * `extra` ops (an idempotency key's record) go in the same batch; a create of theirs whose
   * id is taken fails it with `IdTakenError`.
   * @throws {ServiceError} `conflict` when the record is gone (its form was deleted, or the
   *   sweep gave the upload up); nothing is kept then.
   */
  settle(size: number, extra?: () => BatchOp[]): Promise<void>;
  /** Deletes the record and gives back what it held. */
  release(): Promise<void>;
}

/**
 * Holds up to `limit` bytes for the upload of `record` (its `file_size` is set here): as
 * much as the owner's storage quota (`quota`, from `storageQuotaOf`), the form's
 * unclaimed-upload cap and the uploader's share of it leave, in one batch with the
 * reservation record.
 * @throws {ServiceError} `quota_exceeded` when nothing of the quota is left (named first
 *   when several bounds bite), 413 when nothing of the form's cap or the address's is.
 */
export async function holdUpload(
  ctx: Context,
  form: FormRecord,
  record: AttachmentRecord,
  quota: number,
  limit: number,
): Promise<UploadHold> {
  const cap = unclaimedCapOf(ctx, quota);
  const addressCap = addressCapOf(ctx, cap);
  const addressKey = uploaderCounter(record);
  let bound: () => ServiceError = () => fileTooLarge(limit);
  let held = 0;
  const written = await batchAgain(ctx, async () => {
    const storage = await readStorageCounter(ctx, form, quota);
    const used = storage?.record.counts.used ?? 0;
    // The quota first: when both bounds bite, the owner's quota is the one to name.
    if (used >= quota) throw quotaExceeded("total_file_storage", quota);
    const counter = await readFormCounter(ctx, form.id);
    const unclaimed = counter?.record.counts[unclaimedBytesCount] ?? 0;
    if (unclaimed >= cap) throw capReached(cap);
    const address = await ctx.store.get<CounterRecord>(
      addressKey.collection,
      addressKey.partition,
      addressKey.id,
    );
    const byAddress = address?.record.counts[unclaimedBytesCount] ?? 0;
    if (byAddress >= addressCap) throw addressCapReached(addressCap);
    const bounds: [number, () => ServiceError][] = [
      [quota - used, () => quotaExceeded("total_file_storage", quota)],
      [cap - unclaimed, () => capReached(cap)],
      [addressCap - byAddress, () => addressCapReached(addressCap)],
    ];
    held = Math.min(limit, ...bounds.map(([left]) => left));
    // The first bound that leaves only `held` is named, the quota before the caps.
    if (held < limit) bound = bounds.find(([left]) => left === held)?.[1] ?? bound;
    const hold: AttachmentRecord = { ...record, file_size: held, uploading: true };
    const ops: BatchOp[] = [
      {
        op: "create",
        collection: collections.uploads,
        partition: uploadBucketOf(ctx.now()),
        record: uploadNoteOf(record, ctx.now()) as StoreRecord,
      },
      {
        op: "create",
        collection: collections.attachments,
        partition: form.id,
        record: hold,
      },
    ];
    if (storage !== undefined) {
      const key = storageCounter(form);
      ops.push(counterOp(key, storage, { ...storage?.record.counts, used: used + held }));
    }
    const addressCounts = { ...address?.record.counts, [unclaimedBytesCount]: byAddress + held };
    ops.push(counterOp(addressKey, address, addressCounts));
    const counts = { ...counter?.record.counts, [unclaimedBytesCount]: unclaimed + held };
    // Last: Cosmos DB's op-by-op batch writes its last op without reading it first.
    ops.push(counterOp(formCounter(form.id), counter, counts));
    return ops;
  });
  let etag = written?.[1]?.etag ?? "";
  // The address's counter as the hold wrote it, last but one: the settle's first attempt
  // writes on it unread, as an upload's address seldom uploads another file meanwhile.
  const addressHeld = written?.at(-2) as Stored<CounterRecord> | undefined;
  const attachmentOp = { collection: collections.attachments, partition: form.id };
  return {
    held,
    refusal: bound,
    async settle(size, extra) {
      // Claimed by its token when an S2 finds it listed as waiting (waiting-uploads.ts).
      const settled: AttachmentRecord = {
        ...record,
        file_size: size,
        claim_token: newClaimToken(),
      };
      const written = await batchAgain(
        ctx,
        async (attempt) => {
          if (attempt > 1) etag = await currentEtag(ctx, record);
          // The form's counter lists the upload as waiting, in the write that settles its
          // bytes; one a form delete removed gets no list.
          const waiting = (counter: Stored<CounterRecord> | null) => waitingWith(counter, settled);
          const known = attempt === 1 ? addressHeld : undefined;
          const changes = changesOf(form, record, quota, size - held, waiting, known);
          return [
            ...(extra?.() ?? []),
            ...(await countOps(ctx, changes)),
            { op: "replace", ...attachmentOp, record: settled, ifMatch: etag },
          ];
        },
        undefined,
        extra !== undefined,
      );
      // The record as written, last op: this instance's S2 claims it on that etag (settled-uploads.ts).
      const stored = written?.at(-1);
      if (stored) settledUploadsOf(ctx).set(stored as Stored<AttachmentRecord>);
    },
    async release() {
      await batchAgain(ctx, async (attempt) => {
        if (attempt > 1) {
          const stored = await ctx.store.get(attachmentOp.collection, form.id, record.id);
          // Gone: the sweep or a form delete removed it and gave its bytes back.
          if (!stored) return null;
          etag = stored.etag;
        }
        return [
          ...(await countOps(ctx, changesOf(form, record, quota, -held))),
          { op: "delete", ...attachmentOp, id: record.id, ifMatch: etag },
        ];
      });
    },
  };
}

/** The owner's storage counter as read (`null`: none yet); `undefined` without a quota. */
async function readStorageCounter(ctx: Context, form: FormRecord, quota: number) {
  if (!Number.isFinite(quota)) return undefined;
  // Made first when there is none: the hold's batch replaces it (counterToWrite).
  return counterToWrite(ctx, storageCounter(form));
}

function storageCounter(form: FormRecord) {
  return quotaCounter(form.owner_user_id, "total_file_storage");
}

/**
 * The count changes of `delta` bytes held by the upload of `record`: the storage quota (if
 * any), its address's unclaimed bytes (on its counter as `known`, if given) and the form's,
 * with `fields` set on the form's counter.
 */
function changesOf(
  form: FormRecord,
  record: AttachmentRecord,
  quota: number,
  delta: number,
  fields?: CountChange["fields"],
  known?: Stored<CounterRecord>,
): CountChange[] {
  const changes: CountChange[] = [];
  if (Number.isFinite(quota)) changes.push({ key: storageCounter(form), deltas: { used: delta } });
  changes.push({ ...uploaderChange(record, delta), known });
  changes.push({ key: formCounter(form.id), deltas: { [unclaimedBytesCount]: delta }, fields });
  return changes;
}

/** The etag of the upload's record. @throws {ServiceError} `conflict` when it is gone. */
async function currentEtag(ctx: Context, record: AttachmentRecord): Promise<string> {
  const stored = await ctx.store.get(collections.attachments, record.form_id, record.id);
  if (stored) return stored.etag;
  throw new ServiceError(
    "conflict",
    "The upload was given up before it finished (its form was deleted, or it took longer than uploads may); nothing was stored",
  );
}
