import type { Stored } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import type { AttachmentRecord } from "../records/submission-record.ts";

/**
 * The uploads this service instance settled (S3) and has not seen claimed yet, each as the
 * settle wrote it, with the etag that write gave it (an S2 posting a file the same
 * instance took costs one store read less, 5 Cosmos DB requests instead of 6).
 *
 * It is a hint, never a source of truth: S2 claims such a file with a replace conditional on
 * that etag, in the batch that writes the submission. The condition fails exactly when the
 * record changed since the settle, which is the only way a read could have answered anything
 * else (another submission, through any instance, claimed it; the sweep or a form delete
 * removed it). The batch then writes nothing, and S2 reads the file and decides again, so the
 * answer, 400 included, is the one a read would have given. A file uploaded through another
 * instance is not held here: S2 finds it in the form counter's list of waiting uploads
 * instead (waiting-uploads.ts), or reads it.
 */
export interface SettledUploads {
  /** The upload `id` as this instance settled it, if held. */
  get(id: string): Stored<AttachmentRecord> | undefined;
  /** Holds an upload as its settle wrote it, in place of the least recently set past capacity. */
  set(stored: Stored<AttachmentRecord>): void;
  /** Forgets an upload (a submission of this instance claimed it). */
  delete(id: string): void;
}

const settledByInstance = new WeakMap<Context, SettledUploads>();

/** The settled uploads the service instance of `ctx` holds, made on first use. */
export function settledUploadsOf(ctx: Context): SettledUploads {
  let held = settledByInstance.get(ctx);
  if (!held) {
    held = createSettledUploads();
    settledByInstance.set(ctx, held);
  }
  return held;
}

/**
 * Settled uploads of at most `capacity` files, the oldest dropped first (about 0.5 KB each,
 * so the default holds about 0.5 MB): a file dropped is read by its S2, as before.
 */
export function createSettledUploads(capacity = 1000): SettledUploads {
  const held = new Map<string, Stored<AttachmentRecord>>();
  return {
    get: (id) => held.get(id),
    set(stored) {
      held.delete(stored.record.id);
      held.set(stored.record.id, stored);
      if (held.size > capacity) held.delete(held.keys().next().value as string);
    },
    delete(id) {
      held.delete(id);
    },
  };
}
