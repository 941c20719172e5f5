import {
  type BatchOp,
  type Page,
  type Query,
  type ScanOptions,
  type Store,
  StoreConflictError,
  type Stored,
  type StoreRecord,
  type WriteOptions,
} from "formwork/ports";
import {
  batchOpId,
  batchOpRecord,
  checkBatch,
  checkBatchOp,
  copyRecord,
  etagSource,
  evaluateQuery,
  scanPartitions,
} from "formwork/ports/kit";

interface Entry {
  record: StoreRecord;
  etag: string;
}

/** Freezes `value` and every object it holds; JSON records hold no cycles. */
function deepFreeze<T>(value: T): T {
  const object = value as Record<string, unknown>;
  Object.freeze(object);
  for (const key in object) {
    const field = object[key];
    if (typeof field === "object" && field !== null && !Object.isFrozen(field)) deepFreeze(field);
  }
  return value;
}

/** Options of {@link createMemoryStore}. */
export interface MemoryStoreOptions {
  /**
   * Freeze what a write is given (default `false`), so that code changing a record it handed
   * to the store (the port's ownership rule) fails with a `TypeError` at the change instead
   * of changing the stored record unseen. A check for tests of code written against the
   * port, such as this project's own: it costs about 8 µs of CPU per S2 in a server
   * (hot path), for nothing a correct caller needs.
   */
  freezeWrites?: boolean;
}

/**
 * The executable spec of the `Store` port: plain maps. Reads hand out copies; what a write
 * is given belongs to the store (see the port's ownership rule), frozen with
 * `freezeWrites`. Nothing survives the process.
 */
export function createMemoryStore(options: MemoryStoreOptions = {}): Store {
  const own: <T>(record: T) => T = options.freezeWrites ? deepFreeze : (record) => record;
  const collections = new Map<string, Map<string, Map<string, Entry>>>();

  const empty: ReadonlyMap<string, Entry> = new Map();

  function recordsOf(collection: string, partition: string): ReadonlyMap<string, Entry> {
    return collections.get(collection)?.get(partition) ?? empty;
  }

  function partitionOf(collection: string, partition: string): Map<string, Entry> {
    let partitions = collections.get(collection);
    if (!partitions) {
      partitions = new Map();
      collections.set(collection, partitions);
    }
    let records = partitions.get(partition);
    if (!records) {
      records = new Map();
      partitions.set(partition, records);
    }
    return records;
  }

  const newEtag = etagSource();

  function put<T extends StoreRecord>(records: Map<string, Entry>, record: T): Stored<T> {
    // The store owns what a write is given (the Store port): no copy.
    const entry = { record: own(record), etag: newEtag() };
    records.set(record.id, entry);
    return { record, etag: entry.etag };
  }

  function checkEtag(entry: Entry, options?: WriteOptions) {
    if (options?.ifMatch !== undefined && options.ifMatch !== entry.etag) {
      throw new StoreConflictError("etag");
    }
  }

  const store: Store = {
    async get<T extends StoreRecord>(collection: string, partition: string, id: string) {
      const entry = recordsOf(collection, partition).get(id);
      return entry ? { record: copyRecord(entry.record) as T, etag: entry.etag } : null;
    },

    async create<T extends StoreRecord>(collection: string, partition: string, record: T) {
      const records = partitionOf(collection, partition);
      if (records.has(record.id)) throw new StoreConflictError("exists");
      return put(records, record);
    },

    async replace<T extends StoreRecord>(
      collection: string,
      partition: string,
      record: T,
      options?: WriteOptions,
    ) {
      const records = partitionOf(collection, partition);
      const entry = records.get(record.id);
      if (!entry) return null;
      checkEtag(entry, options);
      return put(records, record);
    },

    async delete(collection: string, partition: string, id: string, options?: WriteOptions) {
      const entry = recordsOf(collection, partition).get(id);
      if (!entry) return false;
      checkEtag(entry, options);
      return partitionOf(collection, partition).delete(id);
    },

    async query<T extends StoreRecord>(collection: string, partition: string, query?: Query) {
      const entries = recordsOf(collection, partition).values() as Iterable<Stored<T>>;
      const page: Page<T> = evaluateQuery(entries, query);
      return {
        items: page.items.map(({ record, etag }) => ({ record: copyRecord(record), etag })),
        continuation: page.continuation,
      };
    },

    async batch(ops: readonly BatchOp[]) {
      // Every condition is checked before anything is written; nothing awaits in between.
      checkBatch(ops);
      for (const op of ops) {
        checkBatchOp(op, recordsOf(op.collection, op.partition).get(batchOpId(op)));
      }
      return ops.map((op) => {
        const records = partitionOf(op.collection, op.partition);
        if (op.op === "delete") {
          records.delete(op.id);
          return null;
        }
        const record = batchOpRecord(op, records.get(batchOpId(op)));
        return put(records, record) as Stored<StoreRecord>;
      });
    },

    async deletePartition(collection: string, partition: string) {
      const count = recordsOf(collection, partition).size;
      collections.get(collection)?.delete(partition);
      return count;
    },

    async scan(options?: ScanOptions) {
      const places = [...collections].flatMap(([collection, partitions]) =>
        [...partitions.keys()].map((partition) => ({ collection, partition })),
      );
      return scanPartitions(places, (c, p, q) => store.query(c, p, q), options);
    },

    async close() {},
  };
  return store;
}
