import { type ConflictRetryOptions, retryOnConflict } from "./conflict-retries.ts";
import { type Store, StoreConflictError, type Stored, type StoreRecord } from "./store.ts";

/**
 * What {@link updateRecord} writes, given the record as it is now (`null` when there is
 * none): the record to write, a new object with the same `id` (never `current` changed in
 * place: it may be the store's own), or `null` to write nothing. It runs again on every
 * attempt, with `attempt` counting from 1, so it has no effect beyond what it returns.
 */
export type RecordChange<T extends StoreRecord> = (
  current: Readonly<T> | null,
  attempt: number,
) => T | null | Promise<T | null>;

/** Options of {@link updateRecord}: its retry policy, and what is already known. */
export interface UpdateRecordOptions<T extends StoreRecord> extends ConflictRetryOptions {
  /**
   * The record as last read or written, with its etag: spares the first read. A stale one
   * costs one failed conditional write and a read. @default read from the store
   */
  known?: Stored<T> | null;
}

/**
 * Changes one record under optimistic concurrency: reads it, applies `change`, and writes
 * the result conditionally on the etag it read (a create when there was no record). When
 * another write got there first (or the record was deleted or created meanwhile), it reads
 * again and applies `change` again, as the retry policy of {@link retryOnConflict} allows,
 * so that concurrent changes of different fields all survive.
 * @returns the record as written, with its new etag; when `change` answered `null`, the
 *   record as last read (`null` when there is none)
 * @throws {StoreConflictError} when every attempt lost its race
 * @throws {TypeError} when `change` answers a record with another id
 */
export function updateRecord<T extends StoreRecord>(
  store: Store,
  collection: string,
  partition: string,
  id: string,
  change: RecordChange<T>,
  options: UpdateRecordOptions<T> = {},
): Promise<Stored<T> | null> {
  let known = options.known ?? null;
  return retryOnConflict(async (attempt) => {
    const current = known ?? (await store.get<T>(collection, partition, id));
    known = null;
    const next = await change(current?.record ?? null, attempt);
    if (next === null) return current;
    if (next.id !== id) throw new TypeError(`a change of record ${id} answered record ${next.id}`);
    if (!current) return store.create(collection, partition, next);
    const written = await store.replace(collection, partition, next, { ifMatch: current.etag });
    // Deleted since it was read: the next attempt reads it again and lets `change` decide.
    if (!written) throw new StoreConflictError("etag", `record ${id} was deleted meanwhile`);
    return written;
  }, options);
}
