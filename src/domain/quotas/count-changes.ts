import { retryOnConflict } from "../../ports/conflict-retries.ts";
import {
  type BatchOp,
  StoreConflictError,
  type Stored,
  type StoreRecord,
} from "../../ports/store.ts";
import type { Context } from "../context.ts";
import { IdTakenError } from "../records/idempotency-keys.ts";
import { takeTurn } from "./counter-turns.ts";
import {
  type CounterKey,
  type CounterRecord,
  counterOp,
  counterRetries,
  counterToWrite,
} from "./counters.ts";

/**
 * Counts changed in the same `Store.batch` as the records they count, so that a crash
 * leaves both or neither: the storage quota and the unclaimed-upload bytes beside the
 * attachment records of S3, the sweep, S6 and S7 (crash-exact counts).
 */

/** Changes to the counts of one counter record. */
export interface CountChange {
  key: CounterKey;
  deltas: Record<string, number>;
  /**
   * Other fields to set on the counter record, from the counter as read (the form's list of
   * waiting uploads: waiting-uploads.ts); written even when no count moves.
   */
  fields?: (stored: Stored<CounterRecord> | null) => Readonly<Record<string, unknown>>;
  /**
   * Delete the counter record, on its etag, when every count it holds falls to 0, so that
   * counters keyed by something unbounded (a client address) last only while they count.
   */
  drop?: boolean;
  /**
   * The counter as this process last wrote it, taken instead of a read: a hint, since the
   * op is conditional on its etag (a batch that fails on it is built again without it).
   */
  known?: Stored<CounterRecord>;
}

/**
 * Reads each counter of `changes` and answers the batch op that adds its deltas (a count
 * never goes below 0) and sets its `fields`, conditional on the counter as read. A counter
 * that is not there and would only lose is left alone, as `adjustCount` does: giving back to
 * a count that is gone (a deleted form's) recreates nothing. Changes that add up to nothing
 * and set no field are left out; a change with `drop` that leaves every count at 0 deletes
 * the counter.
 */
export async function countOps(ctx: Context, changes: CountChange[]): Promise<BatchOp[]> {
  const ops: BatchOp[] = [];
  for (const { key, deltas, fields, drop, known } of changes) {
    const moving = Object.entries(deltas).filter(([, delta]) => delta !== 0);
    if (moving.length === 0 && !fields) continue;
    let stored =
      known ?? (await ctx.store.get<CounterRecord>(key.collection, key.partition, key.id));
    if (!stored && moving.every(([, delta]) => delta < 0)) continue;
    // Made first, so that the batch replaces it on its etag (counterToWrite says why).
    if (!stored) stored = await counterToWrite(ctx, key);
    const counts = { ...stored.record.counts };
    for (const [name, delta] of moving) counts[name] = Math.max(0, (counts[name] ?? 0) + delta);
    if (drop && !fields && Object.values(counts).every((count) => count === 0)) {
      const { etag, record } = stored;
      ops.push({ op: "delete", ...key, ifMatch: etag, previous: record });
    } else ops.push(counterOp(key, stored, counts, fields?.(stored)));
  }
  return ops;
}

/**
 * Writes the batch that `build` makes from fresh reads, and builds and writes it again
 * while a condition fails (a counter changed since it was read), with the counters' retry
 * policy (`counterRetries`). `build` decides what to do about a record that is gone:
 * throw, or answer `null` to write nothing.
 *
 * With `turn`, a counter's key, each attempt runs from its build until its batch is handed
 * to the store in turn with the other writers of that counter in this process
 * (counter-turns.ts), so that they do not all read one etag and all but one start over.
 *
 * With `createsTaken`, a batch that fails on a create's id (`"exists"`) is not made again
 * but rejects with {@link IdTakenError}: the batch creates an id that is not fresh (an
 * idempotency key's record), which no fresh read frees.
 * @returns what the written batch answered, or `null` when `build` answered `null`.
 * @throws {StoreConflictError} when the batch lost every one of its attempts.
 */
export async function batchAgain(
  ctx: Context,
  build: (attempt: number) => Promise<BatchOp[] | null>,
  turn?: string,
  createsTaken = false,
): Promise<(Stored<StoreRecord> | null)[] | null> {
  return retryOnConflict(async (attempt) => {
    const endTurn = turn === undefined ? undefined : await takeTurn(ctx.store, turn);
    let writing: Promise<(Stored<StoreRecord> | null)[]> | null;
    try {
      const ops = await build(attempt);
      writing = ops ? handOver(ctx, ops) : null;
      if (writing && createsTaken) writing = writing.catch(idTaken);
    } finally {
      // The batch is handed over (or none was made): the next writer may read the counter.
      endTurn?.();
    }
    return writing;
  }, counterRetries);
}

/**
 * {@link batchAgain} taking turns with this process's other writers of the counter `turn`
 * (S2 posts to one form: counter-turns.ts).
 */
export function batchInTurns(
  ctx: Context,
  turn: string,
  build: (attempt: number) => Promise<BatchOp[] | null>,
  createsTaken = false,
): Promise<(Stored<StoreRecord> | null)[] | null> {
  return batchAgain(ctx, build, turn, createsTaken);
}

function idTaken(error: unknown): never {
  throw error instanceof StoreConflictError && error.reason === "exists"
    ? new IdTakenError(error)
    : error;
}

/** Calls the store's batch now (so that it is queued before the turn ends), failures as a rejection. */
function handOver(ctx: Context, ops: BatchOp[]): Promise<(Stored<StoreRecord> | null)[]> {
  try {
    return ctx.store.batch(ops);
  } catch (error) {
    return Promise.reject(error);
  }
}
