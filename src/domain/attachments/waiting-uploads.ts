import { randomBytes } from "node:crypto";
import type { Stored } from "../../ports/store.ts";
import type { CounterRecord } from "../quotas/counters.ts";
import type { AttachmentRecord } from "../records/submission-record.ts";
import type { Claimable, HeldUploads } from "./attachment-claims.ts";
import type { SettledUploads } from "./settled-uploads.ts";

/**
 * The uploads of a form waiting for a submission, as a hint every instance shares: an
 * S2 posting a file that another instance's S3 settled claims it without reading it first.
 *
 * S3's settle gives the attachment record a one-time `claim_token` and puts the record, as
 * settled, in the form's counter record (`waiting_uploads`), in the batch that settles its
 * counts. S2 reads that counter anyway; a file it finds there it claims unread, with a
 * `Store.batch` patch on that token (the port's `PatchOp`), in the batch that writes the
 * submission, and it drops the file from the list in the same counter write. Every claim
 * takes the token away (`claimedRecord`), so the patch lands exactly when the record is still
 * the settled one unclaimed: claimed through any path or instance, swept, or its form
 * deleted, it fails the batch, and S2 reads the file and decides again, so the answer, 400
 * included, is the one a read gives.
 *
 * The list is only a hint: writers that do not need it leave it as it is (`counterOp` keeps
 * the counter's other fields), an entry the sweep or S6 made stale costs the S2 that names it
 * one failed attempt, and it keeps the newest {@link waitingUploadsKept} uploads, so a form's
 * counter record grows by at most that many attachment records (about 0.4 KB each).
 */

/** The most uploads a form's counter lists as waiting; the oldest are dropped first. */
export const waitingUploadsKept = 8;

/** A form's counter record with the uploads it lists as waiting. */
interface FormCounterRecord extends CounterRecord {
  waiting_uploads?: AttachmentRecord[];
}

/** A new one-time claim token (lowercase hex, as the port's `PatchOp` takes). */
export function newClaimToken(): string {
  return randomBytes(12).toString("hex");
}

/** The uploads the form's counter, as read, lists as waiting. */
export function waitingUploadsOf(counter: Stored<CounterRecord> | null): AttachmentRecord[] {
  return (counter?.record as FormCounterRecord | undefined)?.waiting_uploads ?? [];
}

/**
 * The counter fields that list `settled` as waiting, after the ones `counter` lists (the
 * oldest dropped past {@link waitingUploadsKept}).
 */
export function waitingWith(
  counter: Stored<CounterRecord> | null,
  settled: AttachmentRecord,
): Pick<FormCounterRecord, "waiting_uploads"> {
  const waiting = waitingUploadsOf(counter).filter((upload) => upload.id !== settled.id);
  waiting.push(settled);
  return { waiting_uploads: waiting.slice(-waitingUploadsKept) };
}

/**
 * The counter fields that list what `counter` lists as waiting but the files of `claims`,
 * or nothing when none of them is listed.
 */
export function waitingWithout(
  counter: Stored<CounterRecord> | null,
  claims: readonly Claimable[],
): Pick<FormCounterRecord, "waiting_uploads"> | undefined {
  const waiting = waitingUploadsOf(counter);
  if (waiting.length === 0 || claims.length === 0) return undefined;
  const claimed = new Set(claims.map(({ record }) => record.id));
  const left = waiting.filter((upload) => !claimed.has(upload.id));
  if (left.length === waiting.length) return undefined;
  return { waiting_uploads: left };
}

/**
 * Where an S2's first attempt finds files to claim unread: the uploads this instance settled
 * (claimed on their etag), then those the form's counter lists as waiting (claimed on their
 * token).
 */
export function heldUploads(
  settled: SettledUploads,
  counter: Stored<CounterRecord> | null,
): HeldUploads {
  const waiting = waitingUploadsOf(counter);
  return (id) => {
    const held = settled.get(id);
    if (held) return held;
    const listed = waiting.find((upload) => upload.id === id);
    return listed?.claim_token ? { record: listed, token: listed.claim_token } : undefined;
  };
}
