/**
 * A `Store` over a single JSON file: the example adapter of `formwork/ports`. It keeps the
 * file's data in memory, runs every call one at a time (a mutex), and writes the whole file
 * again, atomically, after each write. Fine for a few thousand records; it shows the
 * contract, not a way to scale.
 */
import { randomUUID } from "node:crypto";
import {
  type BatchOp,
  type Query,
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
  evaluateQuery,
  scanPartitions,
} from "formwork/ports/kit";
import { type Data, type Entry, partitionKey, readData, writeData } from "./json-file.ts";
import { Mutex } from "./mutex.ts";

/** One record's place and what it becomes (`undefined`: deleted). */
type Change = { collection: string; partition: string; id: string; entry: Entry | undefined };

/** Opens the store kept in the file `path`; nothing is read until the first call. */
export function createJsonFileStore(path: string): Store {
  const mutex = new Mutex();
  let loaded: Data | undefined;
  const data = async () => {
    loaded ??= await readData(path);
    return loaded;
  };
  const entryOf = (d: Data, collection: string, partition: string, id: string) =>
    d.get(partitionKey(collection, partition))?.get(id);

  /** Applies `changes`, writes the file, and takes them back if the write fails. */
  async function commit(d: Data, changes: Change[]): Promise<void> {
    const before = changes.map((c) => ({
      ...c,
      entry: entryOf(d, c.collection, c.partition, c.id),
    }));
    const apply = (list: Change[]) => {
      for (const { collection, partition, id, entry } of list) {
        const key = partitionKey(collection, partition);
        const records = d.get(key) ?? new Map<string, Entry>();
        if (entry) records.set(id, entry);
        else records.delete(id);
        if (records.size > 0) d.set(key, records);
        else d.delete(key);
      }
    };
    apply(changes);
    try {
      await writeData(path, d);
    } catch (error) {
      apply(before.reverse());
      throw error;
    }
  }

  /** Checks a write's condition. @throws {StoreConflictError} when it does not hold */
  function check(entry: Entry | undefined, op: "create" | "replace" | "delete", ifMatch?: string) {
    if (op === "create" && entry) throw new StoreConflictError("exists");
    if (op !== "create" && entry && ifMatch !== undefined && ifMatch !== entry.etag) {
      throw new StoreConflictError("etag");
    }
  }

  const copy = <T>(entry: Entry): Stored<T> => ({
    record: structuredClone(entry.record) as T,
    etag: entry.etag,
  });
  const newEntry = (record: StoreRecord): Entry => ({ record, etag: randomUUID() });

  const store: Store = {
    get: (collection, partition, id) =>
      mutex.run(async () => {
        const entry = entryOf(await data(), collection, partition, id);
        return entry ? copy(entry) : null;
      }),

    create: <T extends StoreRecord>(collection: string, partition: string, record: T) =>
      mutex.run(async () => {
        const d = await data();
        check(entryOf(d, collection, partition, record.id), "create");
        const entry = newEntry(record);
        await commit(d, [{ collection, partition, id: record.id, entry }]);
        return { record, etag: entry.etag };
      }),

    replace: <T extends StoreRecord>(
      collection: string,
      partition: string,
      record: T,
      options?: WriteOptions,
    ) =>
      mutex.run(async () => {
        const d = await data();
        const current = entryOf(d, collection, partition, record.id);
        if (!current) return null;
        check(current, "replace", options?.ifMatch);
        const entry = newEntry(record);
        await commit(d, [{ collection, partition, id: record.id, entry }]);
        return { record, etag: entry.etag };
      }),

    delete: (collection, partition, id, options) =>
      mutex.run(async () => {
        const d = await data();
        const current = entryOf(d, collection, partition, id);
        if (!current) return false;
        check(current, "delete", options?.ifMatch);
        await commit(d, [{ collection, partition, id, entry: undefined }]);
        return true;
      }),

    query: <T extends StoreRecord>(collection: string, partition: string, query?: Query) =>
      mutex.run(async () => {
        const entries = (await data()).get(partitionKey(collection, partition))?.values() ?? [];
        const page = evaluateQuery(entries as Iterable<Stored<T>>, query);
        return {
          items: page.items.map((entry) => copy<T>(entry)),
          continuation: page.continuation,
        };
      }),

    batch: (ops: readonly BatchOp[]) =>
      mutex.run(async () => {
        checkBatch(ops);
        const d = await data();
        const changes = ops.map((op): Change => {
          const id = batchOpId(op);
          const current = entryOf(d, op.collection, op.partition, id);
          // A batch's replace, delete or patch needs its record, with or without a condition
          // (a patch's is the token its record holds, not an etag).
          checkBatchOp(op, current);
          const entry = op.op === "delete" ? undefined : newEntry(batchOpRecord(op, current));
          return { collection: op.collection, partition: op.partition, id, entry };
        });
        await commit(d, changes);
        return changes.map(({ entry }) => entry ?? null);
      }),

    deletePartition: (collection, partition) =>
      mutex.run(async () => {
        const d = await data();
        const ids = [...(d.get(partitionKey(collection, partition))?.keys() ?? [])];
        const changes = ids.map((id) => ({ collection, partition, id, entry: undefined }));
        if (changes.length > 0) await commit(d, changes);
        return ids.length;
      }),

    // The kit pages through the partitions with `query`, which takes the mutex per page.
    scan: async (options) => {
      const keys = [...(await mutex.run(data)).keys()];
      const places = keys.map((key) => {
        const [collection, partition] = JSON.parse(key) as [string, string];
        return { collection, partition };
      });
      return scanPartitions(places, (c, p, q) => store.query(c, p, q), options);
    },

    // Every call runs under the mutex, and each write is on disk before it answers.
    close: () => mutex.run(async () => {}),
  };
  return store;
}
