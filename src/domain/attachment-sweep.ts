import { type Context, collections } from "../context.ts";
import { queryAll } from "../ports/query-all.ts";
import { StoreConflictError } from "../ports/store.ts";
import { giveBackFileStorage } from "./storage-quota.ts";
import type { AttachmentRecord, SubmissionRecord } from "./submission-record.ts";
import { releaseUnclaimedBytes } from "./unclaimed-uploads.ts";

/** A note that an upload happened; partition: its hour (see {@link uploadBucketOf}). */
interface UploadNote {
  id: string;
  form_id: string;
}

interface SweepCursor {
  id: string;
  /** The first hour not swept yet. */
  next_bucket: string;
}

const hour = 60 * 60 * 1000;
/** How far back a sweep with no cursor yet looks. */
const firstLookBack = 7 * 24 * hour;
/** A claim this recent may belong to a submission still being written. */
const claimSettling = hour;
const cursorKey = { partition: "attachment-sweep", id: "cursor" };

/** The hour an upload is noted under: `YYYY-MM-DDTHH`, UTC. */
export function uploadBucketOf(date: Date): string {
  return date.toISOString().slice(0, 13);
}

/**
 * Removes the attachments whose grace period is over and that no submission holds: those
 * never claimed, and those whose submission was never written. Works hour by hour through
 * the upload notes, so it never scans the attachments themselves; a cursor in the Store
 * remembers where it stopped. Safe to run from several instances at once.
 * @returns how many attachments it removed.
 */
export async function sweepAttachments(ctx: Context): Promise<number> {
  const now = ctx.now().getTime();
  const end = uploadBucketOf(new Date(now - ctx.limits.attachmentGraceMs));
  const cursor = await ctx.store.get<SweepCursor>(
    collections.serviceState,
    cursorKey.partition,
    cursorKey.id,
  );
  let bucket =
    cursor?.record.next_bucket ??
    uploadBucketOf(new Date(now - ctx.limits.attachmentGraceMs - firstLookBack));
  let removed = 0;
  while (bucket < end) {
    const notes = await queryAll<UploadNote>(ctx.store, collections.uploads, bucket);
    for (const note of notes) removed += await sweepOne(ctx, note, now);
    await ctx.store.deletePartition(collections.uploads, bucket);
    bucket = uploadBucketOf(new Date(Date.parse(`${bucket}:00:00Z`) + hour));
    await saveCursor(ctx, bucket);
  }
  return removed;
}

async function sweepOne(ctx: Context, note: UploadNote, now: number): Promise<number> {
  const stored = await ctx.store.get<AttachmentRecord>(
    collections.attachments,
    note.form_id,
    note.id,
  );
  if (!stored) {
    // The file may have been written without its record (a crash between the two).
    await ctx.blobs?.delete(note.form_id, note.id);
    return 0;
  }
  const { record, etag } = stored;
  if (record.submission_id) {
    const submission = await ctx.store.get<SubmissionRecord>(
      collections.submissions,
      note.form_id,
      record.submission_id,
    );
    if (submission) return 0;
    if (now - Date.parse(record.modified_date_utc) < claimSettling) {
      await ctx.store.create(collections.uploads, uploadBucketOf(new Date(now)), note);
      return 0;
    }
  }
  try {
    await ctx.store.delete(collections.attachments, note.form_id, note.id, { ifMatch: etag });
  } catch (error) {
    // Claimed since we read it: it has a submission now.
    if (error instanceof StoreConflictError) return 0;
    throw error;
  }
  await ctx.blobs?.delete(note.form_id, note.id);
  await giveBackFileStorage(ctx, note.form_id, record.file_size);
  // A claimed file left the unclaimed count when it was claimed.
  if (!record.submission_id) await releaseUnclaimedBytes(ctx, note.form_id, record.file_size);
  return 1;
}

async function saveCursor(ctx: Context, next_bucket: string) {
  const record: SweepCursor = { id: cursorKey.id, next_bucket };
  const written = await ctx.store.replace(collections.serviceState, cursorKey.partition, record);
  if (written) return;
  try {
    await ctx.store.create(collections.serviceState, cursorKey.partition, record);
  } catch (error) {
    // Another instance wrote the first cursor meanwhile; the next sweep reads it.
    if (!(error instanceof StoreConflictError)) throw error;
  }
}
