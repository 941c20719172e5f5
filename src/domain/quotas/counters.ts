import type { ConflictRetryOptions } from "../../ports/conflict-retries.ts";
import { type BatchOp, StoreConflictError, type Stored } from "../../ports/store.ts";
import { updateRecord } from "../../ports/update-record.ts";
import type { Context } from "../context.ts";

/** Where a counter record lives. */
export interface CounterKey {
  collection: string;
  partition: string;
  id: string;
}

/** A counter record: named counts. */
export interface CounterRecord {
  id: string;
  counts: Record<string, number>;
}

/**
 * The retry policy of counter writes and the batches that carry them: counters are the
 * service's hottest records (every submission of a form counts on the same one), so they
 * get many more attempts than the default, with the default's jitter.
 */
export const counterRetries: Readonly<ConflictRetryOptions> = Object.freeze({ attempts: 200 });

/**
 * Adds `delta` to one count of a counter record, unless the result would pass `limit`.
 * Every write is conditional on the etag it read, so concurrent callers never both take the
 * last unit: a caller that loses the race reads again and decides again.
 * @returns `false` (and changes nothing) when the count would exceed `limit`.
 */
export async function adjustCount(
  ctx: Context,
  key: CounterKey,
  name: string,
  delta: number,
  limit = Number.POSITIVE_INFINITY,
): Promise<boolean> {
  const changed = await changeCount(ctx, key, name, (current) =>
    delta > 0 && current + delta > limit ? null : delta,
  );
  return changed !== null;
}

/**
 * Changes one count by what `decide` answers for the current value, or not at all when it
 * answers `null`; retries a write that lost a race.
 * @returns the change made, or `null`.
 */
async function changeCount(
  ctx: Context,
  key: CounterKey,
  name: string,
  decide: (current: number) => number | null,
): Promise<number | null> {
  const changed = await changeCounts(ctx, key, (counts) => {
    const delta = decide(counts[name] ?? 0);
    return delta === null ? null : { [name]: delta };
  });
  return changed?.[name] ?? null;
}

/**
 * Changes counts by what `decide` answers for the current ones, or not at all when it
 * answers `null`; retries a write that lost a race. @returns the changes made, or `null`.
 */
async function changeCounts(
  ctx: Context,
  key: CounterKey,
  decide: (counts: Readonly<Record<string, number>>) => Record<string, number> | null,
): Promise<Record<string, number> | null> {
  // What the last attempt decided: the attempt that wrote, or the one that wrote nothing.
  let made: Record<string, number> | null = null;
  await updateRecord<CounterRecord>(
    ctx.store,
    key.collection,
    key.partition,
    key.id,
    (stored) => {
      const current = stored?.counts ?? {};
      made = decide(current);
      if (made === null) return null;
      // A count not there is 0: taking from it leaves it so, and recreates no deleted record.
      if (!stored && Object.values(made).every((delta) => delta <= 0)) return null;
      const counts = { ...current };
      for (const [name, delta] of Object.entries(made)) {
        counts[name] = Math.max(0, (current[name] ?? 0) + delta);
      }
      return { ...stored, id: key.id, counts };
    },
    counterRetries,
  );
  return made;
}

/**
 * A counter to write in a `Store.batch` beside records of another partition (a partner
 * customer's quotas beside a form's records), as read; created first, empty, when there is
 * none yet, so that the batch replaces it on its etag rather than creating it. A create of
 * an id that another writer may create too cannot go in such a batch: on Cosmos DB it would
 * be written after the batch's commit, where it could no longer fail the batch
 * (adapters/cosmos/README.md, "Crash-exact writes").
 */
export async function counterToWrite(
  ctx: Context,
  key: CounterKey,
): Promise<Stored<CounterRecord>> {
  for (;;) {
    const stored = await ctx.store.get<CounterRecord>(key.collection, key.partition, key.id);
    if (stored) return stored;
    try {
      return await ctx.store.create<CounterRecord>(key.collection, key.partition, {
        id: key.id,
        counts: {},
      });
    } catch (error) {
      // Another writer created it first: read theirs.
      if (!(error instanceof StoreConflictError)) throw error;
    }
  }
}

/**
 * The batch op that writes a counter's whole `counts` (every name it holds, not only the
 * one changed) conditionally on the counter as read: a replace on its etag, or a create
 * when there was none (`stored` is `null`). In a `Store.batch` beside the record it
 * counts, the count and the record are written together or not at all. Other fields of the
 * record are kept as read, or set from `fields`.
 */
export function counterOp(
  key: CounterKey,
  stored: Stored<CounterRecord> | null,
  counts: Record<string, number>,
  fields?: Readonly<Record<string, unknown>>,
): BatchOp {
  // The record's other fields stay as read, but for `fields` (waiting-uploads.ts).
  const record: CounterRecord = { ...stored?.record, ...fields, id: key.id, counts };
  const place = { collection: key.collection, partition: key.partition };
  return stored
    ? { op: "replace", ...place, record, ifMatch: stored.etag, previous: stored.record }
    : { op: "create", ...place, record };
}
