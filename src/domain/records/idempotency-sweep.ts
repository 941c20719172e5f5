import { queryAll } from "../../ports/query-all.ts";
import { type Page, StoreConflictError } from "../../ports/store.ts";
import { collections } from "./collections.ts";
import {
  type IdempotencyRecord,
  idempotencyWindowMs,
  type KeyContext,
} from "./idempotency-keys.ts";
import { readSweepCursor, saveSweepCursor } from "./sweep-cursors.ts";

/**
 * Removes idempotency key records past their 24 hours (docs/design.md §15). Keys are read
 * and written in their form's partition; so that the sweep never scans forms, a post that
 * keeps a key notes its form under the hour (`idempotency_notes`, once an hour per form and
 * instance: idempotency-keys.ts). The sweep works hour by hour through the notes older than
 * the window, with a cursor in the Store, and in each form noted deletes the expired
 * records a page of 100 at a time, each on the etag it read (a key used again since keeps
 * its new record). Expired records it has not reached yet are ignored by the requests.
 * @returns how many key records it removed.
 */
export async function sweepIdempotencyKeys(ctx: KeyContext): Promise<number> {
  const now = ctx.now().getTime();
  const end = hourOf(now - idempotencyWindowMs);
  const cursor = await readSweepCursor(ctx.store, sweepName);
  let bucket = cursor ?? hourOf(now - idempotencyWindowMs - firstLookBack);
  let removed = 0;
  const cutoff = new Date(now - idempotencyWindowMs).toISOString();
  while (bucket < end) {
    const notes = await queryAll<KeyNote>(ctx.store, collections.idempotencyNotes, bucket);
    const forms = new Set(notes.map((note) => note.form_id));
    for (const formId of forms) removed += await sweepForm(ctx, formId, cutoff);
    await ctx.store.deletePartition(collections.idempotencyNotes, bucket);
    bucket = hourOf(Date.parse(`${bucket}:00:00Z`) + hour);
    await saveSweepCursor(ctx.store, sweepName, bucket);
  }
  return removed;
}

/** A note that a form kept idempotency keys in an hour; partition: the hour. */
interface KeyNote {
  id: string;
  form_id: string;
}

const hour = 60 * 60 * 1000;
/** How far back a sweep with no cursor yet looks. */
const firstLookBack = 24 * hour;
const sweepName = "idempotency-sweep";

function hourOf(time: number): string {
  return new Date(time).toISOString().slice(0, 13);
}

/** Deletes the key records of `formId` created before `cutoff`, a page at a time. */
async function sweepForm(ctx: KeyContext, formId: string, cutoff: string): Promise<number> {
  let removed = 0;
  let continuation: string | null = null;
  do {
    const page: Page<IdempotencyRecord> = await ctx.store.query<IdempotencyRecord>(
      collections.idempotencyKeys,
      formId,
      { where: [{ field: "created_at", op: "lt", value: cutoff }], limit: 100, continuation },
    );
    for (const { record, etag } of page.items) {
      try {
        const options = { ifMatch: etag };
        if (await ctx.store.delete(collections.idempotencyKeys, formId, record.id, options)) {
          removed += 1;
        }
      } catch (error) {
        // The key was used again after it expired: its new record stays.
        if (!(error instanceof StoreConflictError)) throw error;
      }
    }
    continuation = page.continuation;
  } while (continuation);
  return removed;
}
