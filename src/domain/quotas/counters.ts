import { setTimeout as sleep } from "node:timers/promises";
import { type BatchOp, StoreConflictError, type Stored } from "../../ports/store.ts";
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

const attempts = 200;

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
  for (let attempt = 1; ; attempt++) {
    try {
      const stored = await ctx.store.get<CounterRecord>(key.collection, key.partition, key.id);
      const current = stored?.record.counts ?? {};
      const deltas = decide(current);
      if (deltas === null) return null;
      // A count not there is 0: taking from it leaves it so, and recreates no deleted record.
      if (!stored && Object.values(deltas).every((delta) => delta <= 0)) return deltas;
      const counts = { ...current };
      for (const [name, delta] of Object.entries(deltas)) {
        counts[name] = Math.max(0, (current[name] ?? 0) + delta);
      }
      if (!(await writeCounter(ctx, key, stored, counts))) {
        throw new StoreConflictError("etag", "counter changed meanwhile");
      }
      return deltas;
    } catch (error) {
      if (!(error instanceof StoreConflictError) || attempt === attempts) throw error;
      // A little jitter keeps a crowd of writers from colliding in lock step.
      await sleep(Math.random() * Math.min(attempt, 20));
    }
  }
}

/**
 * Writes a counter's `counts` conditionally on the counter as it was read: a replace on its
 * etag, or a create when there was none (`stored` is `null`).
 * @returns `false` when another write got there first (nothing is written then).
 */
export async function writeCounter(
  ctx: Context,
  key: CounterKey,
  stored: Stored<CounterRecord> | null,
  counts: Record<string, number>,
): Promise<boolean> {
  const record: CounterRecord = { id: key.id, counts };
  try {
    if (!stored) {
      await ctx.store.create(key.collection, key.partition, record);
      return true;
    }
    const options = { ifMatch: stored.etag };
    return (await ctx.store.replace(key.collection, key.partition, record, options)) !== null;
  } catch (error) {
    if (error instanceof StoreConflictError) return false;
    throw error;
  }
}

/**
 * The batch op that writes a counter's whole `counts` (every name it holds, not only the
 * one changed) conditionally on the counter as read: a replace on its etag, or a create
 * when there was none (`stored` is `null`). In a `Store.batch` beside the record it
 * counts, the count and the record are written together or not at all.
 */
export function counterOp(
  key: CounterKey,
  stored: Stored<CounterRecord> | null,
  counts: Record<string, number>,
): BatchOp {
  const record: CounterRecord = { id: key.id, counts };
  const place = { collection: key.collection, partition: key.partition };
  return stored
    ? { op: "replace", ...place, record, ifMatch: stored.etag, previous: stored.record }
    : { op: "create", ...place, record };
}
