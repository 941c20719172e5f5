/**
 * The Store port: where every record of the service lives.
 *
 * Records are JSON objects with a string `id`, grouped in named collections and, inside a
 * collection, in partitions. Every operation names its partition, so that the contract maps
 * onto Cosmos DB (one container per collection, the partition as partition key) and onto
 * files (one set of files per partition). The one operation that spans partitions is
 * {@link Store.batch}, for a record and the counters that count it.
 *
 * Calls may overlap. Every call on one record (`get`, `create`, `replace`, `delete`) is
 * atomic; `batch` and `deletePartition` state their own atomicity, which differs by adapter.
 * Optimistic concurrency uses opaque etags: a write with `ifMatch` succeeds only if the
 * stored record still carries that etag. `get`, `query` and every write answer the etag, so
 * a record read either way can be written back on its condition without reading it again.
 *
 * Ownership: a record given to a write (`create`, `replace`, `batch`) belongs to the store
 * once the write is called, and so does the record a write returns, which may be the same
 * object: the caller changes neither, so that stores need not copy records on the hot path
 * (hot path). The memory store, the executable spec, freezes them with `freezeWrites` (this
 * project's tests turn it on) to catch a caller that does. A record returned by `get` or
 * `query` is the caller's own to change.
 */
export interface Store {
  /**
   * Reads one record by id inside its partition.
   * @returns the record and its etag, or `null` when no record has that id there.
   */
  get<T extends StoreRecord>(
    collection: string,
    partition: string,
    id: string,
  ): Promise<Stored<T> | null>;

  /**
   * Creates a record.
   * @throws {StoreConflictError} with reason `"exists"` when the partition already holds a
   *   record with that id; nothing is written then.
   */
  create<T extends StoreRecord>(
    collection: string,
    partition: string,
    record: T,
  ): Promise<Stored<T>>;

  /**
   * Replaces a whole record (same id, same partition).
   * @returns the new record and its new etag, or `null` when no record has that id.
   * @throws {StoreConflictError} with reason `"etag"` when `ifMatch` is given and the stored
   *   etag differs; nothing is written then.
   */
  replace<T extends StoreRecord>(
    collection: string,
    partition: string,
    record: T,
    options?: WriteOptions,
  ): Promise<Stored<T> | null>;

  /**
   * Deletes a record.
   * @returns `true` when it was deleted, `false` when no record had that id.
   * @throws {StoreConflictError} with reason `"etag"` when `ifMatch` is stale.
   */
  delete(
    collection: string,
    partition: string,
    id: string,
    options?: WriteOptions,
  ): Promise<boolean>;

  /**
   * Lists the records of one partition that satisfy every condition of `query.where`,
   * each with its etag, ordered by `query.orderBy` (ties, and the default order, by `id`
   * ascending), at most `query.limit` at a time. Pass the returned `continuation` back to
   * read the next page; it is `null` on the last page. Records written between pages may or
   * may not appear, but no record that existed throughout is skipped or repeated.
   *
   * Order across types: a missing field < `false` < `true` < numbers < strings; numbers
   * compare numerically, strings by UTF-16 code unit (not by locale). The service orders
   * only by fields every matching record holds with one type (see {@link Query.orderBy}).
   *
   * Conditions never convert types. `eq` holds only for the same type and value (`1` is not
   * `"1"`, a missing field equals nothing). `gt`, `gte`, `lt`, `lte` hold only when the field
   * has the value's type: a record whose field is missing or of another type matches none
   * of them (so `n > 1` and `n <= 1` may both miss it). `contains` holds only when the field
   * is an array holding an element of the same type and value. `evaluateQuery` (the kit,
   * `formwork/ports/kit`) is the reference; Cosmos DB SQL answers the same for these
   * comparisons.
   *
   * Only the query shapes in the kit's `serviceQueries` are issued by the service: an adapter
   * that needs indexes or plans per field can prepare exactly those.
   */
  query<T extends StoreRecord>(
    collection: string,
    partition: string,
    query?: Query,
  ): Promise<Page<T>>;

  /**
   * Writes several records together, all or nothing: every op's condition is checked
   * first (a create's id must be free, a replace's or delete's record must exist and match
   * its `ifMatch`, a patch's must exist and hold its token), and if any fails nothing is
   * written and it throws. Ops run in order and
   * may name any collection and partition, but at most one op per record.
   *
   * Every store keeps this across a crash too: after a kill at any instant, and the store's
   * recovery, all of the batch is written or none of it. Memory and lowdb apply a batch at
   * once (lowdb journals it as one entry). Cosmos DB writes it as transactional batches,
   * one per partition key, and finishes one that a crash cut from an intent written with
   * the first (adapters/cosmos/README.md): until then, readers of other partitions may see
   * part of it. There a create in another partition than the batch's conditional ops is
   * written after its commit, so it must be of an id no other writer creates (a fresh one).
   * @returns per op: the written record and its etag (create, replace, patch), or `null`
   *   (delete)
   * @throws {StoreConflictError} `"exists"` for a create of an id already there, `"etag"`
   *   for a replace, delete or patch whose record is missing or fails its condition (etag, token)
   * @throws {TypeError} for a batch that writes one record twice, or a patch that names a
   *   field or token it does not take (see {@link PatchOp})
   */
  batch(ops: readonly BatchOp[]): Promise<(Stored<StoreRecord> | null)[]>;

  /**
   * Deletes every record of one partition.
   *
   * Atomicity differs by adapter. Memory and lowdb delete the partition at once, also
   * across a crash (lowdb journals it as one entry). Cosmos DB has no such operation: it
   * reads the ids page by page and deletes them in transactional batches of 100, so
   * concurrent readers may see part of the partition gone, records written meanwhile may
   * or may not be deleted, and a crash or failure in the middle leaves the rest in place.
   * Calling it again finishes the job. The service copes by never letting what remains
   * matter: it first deletes (or marks) the record that makes the partition reachable (the
   * form, the datalist, the webhook), so leftovers are unreachable, and where leftovers
   * would hold quota or files it keeps a note and its sweep calls this again (form
   * deletion's note, the upload sweep's cursor saved only after the bucket is gone).
   * @returns how many records were deleted (by this call).
   */
  deletePartition(collection: string, partition: string): Promise<number>;

  /**
   * Reads every record the service stored, of every collection and partition, page by page:
   * the full scan that copying a store to another needs (docs/design.md §24). Each item names
   * its collection and partition and carries the record with its etag, as `get` answers it.
   * What an adapter keeps for itself (Cosmos DB's intents and markers) is not listed.
   *
   * The order is the store's own, stable from page to page. A page holds at most
   * `options.limit` items and may hold fewer, even none, while more remain: only a `null`
   * continuation ends the scan. As for `query`, records written between pages may or may
   * not appear, but no record that existed throughout is skipped or repeated. Where a store
   * has multi-record writes in flight or left by a crash (Cosmos DB's intents), scan it once
   * they are finished: stopped, or recovered.
   * @throws {StoreContinuationError} for a continuation the store did not issue
   */
  scan(options?: ScanOptions): Promise<ScanPage>;

  /** Finishes pending writes and releases resources; the store is not used afterwards. */
  close(): Promise<void>;

  /**
   * Optional: figures of the store's own for the service's metrics (docs/design.md §10,
   * §19), read at each scrape of them. Cheap: no I/O, nothing waited for. A store without
   * such figures leaves it out; one that has only some leaves the others out of the answer.
   */
  stats?(): StoreStats;
}

/** What {@link Store.stats} answers. */
export interface StoreStats {
  /** Bytes of the journal file being written (an embedded store's log of changes). */
  journalBytes?: number;
  /** Compactions of the journal into snapshots finished since the store opened. */
  compactions?: number;
}

/** Options of {@link Store.scan}. */
export interface ScanOptions {
  /** The most items a page returns. @default 1000 */
  limit?: number;
  /** The token of the previous page; none (or `null`) starts the scan. */
  continuation?: string | null;
}

/** One record found by {@link Store.scan}, with where it lives. */
export interface ScannedRecord extends Stored<StoreRecord> {
  collection: string;
  partition: string;
}

/** One page of {@link Store.scan}. */
export interface ScanPage {
  items: ScannedRecord[];
  /** Token for the next page; `null` when the scan is done. */
  continuation: string | null;
}

/** The shape every stored record has. */
export interface StoreRecord {
  id: string;
}

/** A record as read from or written to the store, with its current etag. */
export interface Stored<T> {
  record: T;
  /** Opaque version tag; changes on every write of the record. */
  etag: string;
  /**
   * The record's JSON text, exactly what `JSON.stringify(record)` writes, when the store has
   * it at hand anyway (a `query` item a store just read it from): a caller that only
   * serializes the record unchanged may copy the text instead. With it, `record` may be an
   * accessor that parses the text on first read, so that a caller needing only the text
   * never builds the record. Never required; absent from `get` and from every write's answer.
   */
  json?: string;
}

/** Options of conditional writes. */
export interface WriteOptions {
  /** Write only if the stored record still has this etag. */
  ifMatch?: string;
}

/**
 * One write of a {@link Store.batch}, naming its collection and partition. A replace or
 * delete with `ifMatch` may carry `previous`, the record exactly as the caller read it with
 * that etag: a store that applies the batch op by op (Cosmos DB across partition keys) then
 * undoes the write with it instead of reading the record again. The write stays conditional
 * on `ifMatch`, so `previous` is what it replaces whenever it lands.
 */
export type BatchOp =
  | { op: "create"; collection: string; partition: string; record: StoreRecord }
  | {
      op: "replace";
      collection: string;
      partition: string;
      record: StoreRecord;
      ifMatch?: string;
      /** The record as read with the etag `ifMatch`: see {@link BatchOp}'s `previous`. */
      previous?: StoreRecord;
    }
  | {
      op: "delete";
      collection: string;
      partition: string;
      id: string;
      ifMatch?: string;
      previous?: StoreRecord;
    }
  | PatchOp;

/**
 * A batch op that sets some top-level fields of a record the caller has not read, on a
 * one-time token the record holds instead of its etag (S2 claims a file that
 * another instance's S3 settled, known from a hint, without reading it first). It lands only
 * while the record's field `token.field` holds the string `token.value`, and it removes that
 * field, so the same token never lands twice. Otherwise it fails like a replace with a stale
 * `ifMatch` (`"etag"`), also when the record is missing. The stored record becomes
 * `batchOpRecord` of it (store-batch.ts).
 *
 * Fields are plain names (`[A-Za-z_][A-Za-z0-9_]*`, not `id`), `set` names at most 9 and not
 * the token's field, and the token is lowercase letters, digits and hyphens, so that every store
 * can write the condition as it needs (Cosmos DB: a patch's SQL condition) without escaping.
 * `previous` is the record as the caller knows it while it holds the token: a store applying
 * the batch op by op puts it back to undo the patch.
 */
export interface PatchOp {
  op: "patch";
  collection: string;
  partition: string;
  id: string;
  set: Readonly<Record<string, unknown>>;
  token: { field: string; value: string };
  previous?: StoreRecord;
}

/** A scalar a condition compares with. Strings compare by code unit, numbers numerically. */
export type Scalar = string | number | boolean;

/** One condition on a top-level field of a record. */
export type Condition =
  | { field: string; op: "eq"; value: Scalar }
  | { field: string; op: "gt" | "gte" | "lt" | "lte"; value: string | number }
  /** The field is an array that contains `value`. */
  | { field: string; op: "contains"; value: Scalar };

/** A single-partition query. */
export interface Query {
  /** Conditions that must all hold. */
  where?: Condition[];
  /**
   * A top-level field to order by; every record the query matches must have it (Cosmos DB
   * drops records lacking an ORDER BY field). @default id ascending
   */
  orderBy?: { field: string; direction?: "asc" | "desc" };
  /** The most records a page returns. @default no limit */
  limit?: number;
  /** The token of the previous page. */
  continuation?: string | null;
}

/**
 * One page of a query: each record with its etag, exactly as `get` would answer it, so that
 * a caller can write back what it queried (`ifMatch`) without reading it again.
 */
export interface Page<T> {
  items: Stored<T>[];
  /** Token for the next page; `null` when there is none. */
  continuation: string | null;
}

/** A write that lost a race or broke uniqueness. */
export class StoreConflictError extends Error {
  /** `"exists"`: create of an id already there; `"etag"`: a stale `ifMatch`. */
  readonly reason: "exists" | "etag";

  constructor(reason: "exists" | "etag", message?: string, options?: ErrorOptions) {
    super(
      message ?? (reason === "exists" ? "record already exists" : "record was changed"),
      options,
    );
    this.name = "StoreConflictError";
    this.reason = reason;
  }
}

/** Thrown by adapters for a continuation token they did not issue. */
export class StoreContinuationError extends Error {
  constructor(message = "invalid continuation token", options?: ErrorOptions) {
    super(message, options);
    this.name = "StoreContinuationError";
  }
}
