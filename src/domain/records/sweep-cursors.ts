/**
 * Where a sweep that works through hourly buckets keeps the first bucket it has not swept
 * (`service_state`, partition: the sweep's name, id `cursor`), so that each bucket is swept
 * once whichever instance sweeps, and a restart goes on where the last sweep stopped.
 */
import { type Store, StoreConflictError } from "../../ports/store.ts";
import { collections } from "./collections.ts";

interface SweepCursor {
  id: string;
  /** The first bucket not swept yet. */
  next_bucket: string;
}

const cursorId = "cursor";

/** The first bucket the sweep `sweep` has not swept, or `undefined` before its first sweep. */
export async function readSweepCursor(store: Store, sweep: string): Promise<string | undefined> {
  const cursor = await store.get<SweepCursor>(collections.serviceState, sweep, cursorId);
  return cursor?.record.next_bucket;
}

/** Saves `next_bucket` as the first bucket the sweep `sweep` has not swept. */
export async function saveSweepCursor(store: Store, sweep: string, next_bucket: string) {
  const record: SweepCursor = { id: cursorId, next_bucket };
  if (await store.replace(collections.serviceState, sweep, record)) return;
  try {
    await store.create(collections.serviceState, sweep, record);
  } catch (error) {
    // Another instance wrote the first cursor meanwhile; the next sweep reads it.
    if (!(error instanceof StoreConflictError)) throw error;
  }
}
