/**
 * The solutions of bot-protection challenges already used (bot-protection.ts), kept in the
 * Store so that every instance refuses a replay, until their challenge expires; then the
 * sweep deletes them an hour's partition at a time.
 */
import { StoreConflictError } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { readSweepCursor, saveSweepCursor } from "../records/sweep-cursors.ts";

/** A used solution; id: the challenge's signature; partition: the hour it expires. */
interface UsedSolution {
  id: string;
  form_id: string;
  /** When its challenge expires, in seconds. */
  expires_at: number;
}

const hour = 60 * 60 * 1000;
const sweepName = "used-solutions-sweep";

/** The hour a used solution is kept under: that of its expiry, `YYYY-MM-DDTHH`, UTC. */
function bucketOf(ms: number): string {
  return new Date(ms).toISOString().slice(0, 13);
}

/**
 * Records the solution of the challenge signed `signature` as used.
 * @returns `false` when it was used already (by any instance), `true` otherwise.
 */
export async function markSolutionUsed(
  ctx: Context,
  formId: string,
  signature: string,
  expiresAt: number,
): Promise<boolean> {
  const record: UsedSolution = { id: signature, form_id: formId, expires_at: expiresAt };
  try {
    await ctx.store.create(collections.usedSolutions, bucketOf(expiresAt * 1000), record);
    return true;
  } catch (error) {
    if (error instanceof StoreConflictError && error.reason === "exists") return false;
    throw error;
  }
}

/**
 * Deletes the used solutions whose challenges expired in an hour that is over: they can no
 * longer be replayed, as S2 and S3 refuse an expired challenge first. A cursor in the Store
 * remembers the first hour left; a first sweep looks back a day. Safe to run from several
 * instances at once (a partition deleted twice is deleted once).
 * @returns how many records it deleted.
 */
export async function sweepUsedSolutions(ctx: Context): Promise<number> {
  const now = ctx.now().getTime();
  const end = bucketOf(now);
  const cursor = await readSweepCursor(ctx.store, sweepName);
  let bucket = cursor ?? bucketOf(now - 24 * hour);
  if (bucket >= end) return 0;
  let deleted = 0;
  while (bucket < end) {
    deleted += await ctx.store.deletePartition(collections.usedSolutions, bucket);
    bucket = bucketOf(Date.parse(`${bucket}:00:00Z`) + hour);
  }
  await saveSweepCursor(ctx.store, sweepName, bucket);
  return deleted;
}
