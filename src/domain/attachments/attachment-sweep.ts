import { queryAll } from "../../ports/query-all.ts";
import type { Context } from "../context.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { batchAgain } from "../quotas/count-changes.ts";
import { collections } from "../records/collections.ts";
import type { AttachmentRecord, SubmissionRecord } from "../records/submission-record.ts";
import { readSweepCursor, saveSweepCursor } from "../records/sweep-cursors.ts";
import { removalOps } from "./attachment-removal.ts";

/** A note that an upload happened; partition: its hour (see {@link uploadBucketOf}). */
interface UploadNote {
  id: string;
  form_id: string;
  /** When the upload began (notes written before it was kept wait for their whole hour). */
  at?: string;
}

/** The sweep's note of the upload of `record`, begun at `at`. */
export function uploadNoteOf(record: AttachmentRecord, at: Date): UploadNote {
  return { id: record.id, form_id: record.form_id, at: at.toISOString() };
}

const hour = 60 * 60 * 1000;
/** How far back a sweep with no cursor yet looks. */
const firstLookBack = 7 * 24 * hour;
/** A claim this recent may belong to a submission still being written. */
const claimSettling = hour;
const sweepName = "attachment-sweep";

/** The hour an upload is noted under: `YYYY-MM-DDTHH`, UTC. */
export function uploadBucketOf(date: Date): string {
  return date.toISOString().slice(0, 13);
}

/**
 * Removes the attachments whose grace period is over and that no submission holds: those
 * never claimed, those whose submission was never written, and uploads that never
 * finished (their hold, upload-holds.ts). Each removal deletes the record and gives back
 * its bytes (storage quota, unclaimed bytes, its address's) in one batch, and then deletes
 * the file. Works hour by hour through the upload notes, so it never scans the attachments
 * themselves; a cursor in the Store remembers where it stopped. The hour the grace period
 * ends in is swept note by note ({@link sweepHourUnderway}), so that a file is removed by
 * the first sweep after its own grace period, not its hour's. Safe to run from several
 * instances at once.
 * @returns how many attachments it removed.
 */
export async function sweepAttachments(ctx: Context): Promise<number> {
  const now = ctx.now().getTime();
  const end = uploadBucketOf(new Date(now - ctx.limits.attachmentGraceMs));
  const cursor = await readSweepCursor(ctx.store, sweepName);
  let bucket =
    cursor ?? uploadBucketOf(new Date(now - ctx.limits.attachmentGraceMs - firstLookBack));
  let removed = 0;
  while (bucket < end) {
    const notes = await queryAll<UploadNote>(ctx.store, collections.uploads, bucket);
    for (const note of notes) removed += (await sweepOne(ctx, note, now)).removed;
    await ctx.store.deletePartition(collections.uploads, bucket);
    bucket = uploadBucketOf(new Date(Date.parse(`${bucket}:00:00Z`) + hour));
    await saveSweepCursor(ctx.store, sweepName, bucket);
  }
  if (bucket === end) removed += await sweepHourUnderway(ctx, end, now);
  return removed;
}

/**
 * Sweeps the notes of the hour `bucket` that are past their grace period, one by one, and
 * deletes each note done with; the hour's other notes wait for a later sweep, and the whole
 * hour is swept and deleted once it is over. A claim whose submission is not there yet is
 * left for that sweep, which notes it again if it is still recent.
 */
async function sweepHourUnderway(ctx: Context, bucket: string, now: number): Promise<number> {
  const due = now - ctx.limits.attachmentGraceMs;
  const notes = await queryAll<UploadNote>(ctx.store, collections.uploads, bucket);
  let removed = 0;
  for (const note of notes) {
    if (note.at === undefined || Date.parse(note.at) > due) continue;
    const swept = await sweepOne(ctx, note, now, false);
    removed += swept.removed;
    if (swept.done) await ctx.store.delete(collections.uploads, bucket, note.id);
  }
  return removed;
}

/**
 * Removes the attachment of `note` if nothing holds it (see {@link sweepAttachments}).
 * @param again whether a claim too recent to judge is noted again for a later sweep.
 * @returns whether it removed it, and whether the note is done with (nothing left to decide).
 */
async function sweepOne(ctx: Context, note: UploadNote, now: number, again = true) {
  let recorded = true;
  let done = true;
  const removed = await batchAgain(ctx, async () => {
    done = true;
    const stored = await ctx.store.get<AttachmentRecord>(
      collections.attachments,
      note.form_id,
      note.id,
    );
    recorded = stored !== null;
    if (!stored) return null;
    const { record } = stored;
    if (record.submission_id) {
      const judged = await unheld(ctx, note, record, now, again);
      done = judged !== undefined;
      if (!judged) return null;
    }
    // Unclaimed past its grace period, or an upload that never finished (its hold).
    const form = await ctx.store.get<FormRecord>(collections.forms, note.form_id, note.form_id);
    const owner = form?.record.owner_user_id ?? null;
    return removalOps(ctx, note.form_id, owner, [stored], !record.submission_id);
  });
  // No record: the file may have been written without one (a crash after its removal).
  if (removed || !recorded) await ctx.blobs?.delete(note.form_id, note.id);
  return { removed: removed ? 1 : 0, done };
}

/**
 * Whether a claimed attachment's submission does not exist, so that the attachment is
 * removed. Such a claim can be left only by a Cosmos DB batch applied op by op that a crash
 * cut short; a claim this recent may still be waiting for its submission's write, so it
 * is noted again for a later sweep when `again` (`undefined`: not judged yet).
 */
async function unheld(
  ctx: Context,
  note: UploadNote,
  record: AttachmentRecord,
  now: number,
  again: boolean,
): Promise<boolean | undefined> {
  const submission = await ctx.store.get<SubmissionRecord>(
    collections.submissions,
    note.form_id,
    record.submission_id as string,
  );
  if (submission) return false;
  if (now - Date.parse(record.modified_date_utc) >= claimSettling) return true;
  if (!again) return undefined;
  await ctx.store.create(collections.uploads, uploadBucketOf(new Date(now)), note);
  return false;
}
