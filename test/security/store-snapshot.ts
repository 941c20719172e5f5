import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { queryAll } from "../../src/ports/query-all.ts";
import type { Store, StoreRecord } from "../../src/ports/store.ts";

/** A store that remembers every partition written to, so that all it holds can be read back. */
export interface SnapshotStore extends Store {
  /** Everything the store holds, as one canonical string: equal strings, equal contents. */
  snapshot(): Promise<string>;
  /** Every record the store holds, to put back with `restore`. */
  capture(): Promise<Capture>;
  /** Puts back exactly what `capture` saw; partitions written since are emptied. */
  restore(capture: Capture): Promise<void>;
}

/** The records of every partition, as `capture` read them. */
export type Capture = { collection: string; partition: string; items: StoreRecord[] }[];

/**
 * Wraps `store` (the memory store) so that a test can compare what it holds before and after
 * a call. It reads through the port itself, so the snapshot is what any later call would see.
 */
export function snapshotStore(store: Store): SnapshotStore {
  const written = new Map<string, Set<string>>();
  const remember = (collection: string, partition: string) => {
    const partitions = written.get(collection) ?? new Set<string>();
    partitions.add(partition);
    written.set(collection, partitions);
  };
  return {
    get: (collection, partition, id) => store.get(collection, partition, id),
    scan: (options) => store.scan(options),
    create(collection, partition, record) {
      remember(collection, partition);
      return store.create(collection, partition, record);
    },
    replace(collection, partition, record, options) {
      remember(collection, partition);
      return store.replace(collection, partition, record, options);
    },
    delete: (collection, partition, id, options) =>
      store.delete(collection, partition, id, options),
    query: (collection, partition, query) => store.query(collection, partition, query),
    deletePartition: (collection, partition) => store.deletePartition(collection, partition),
    batch(ops) {
      for (const op of ops) if (op.op !== "delete") remember(op.collection, op.partition);
      return store.batch(ops);
    },
    close: () => store.close(),
    async capture() {
      const capture: Capture = [];
      for (const [collection, partitions] of written) {
        for (const partition of partitions) {
          capture.push({
            collection,
            partition,
            items: await queryAll(store, collection, partition),
          });
        }
      }
      return capture;
    },
    async restore(capture) {
      for (const [collection, partitions] of written) {
        for (const partition of partitions) await store.deletePartition(collection, partition);
      }
      for (const { collection, partition, items } of capture) {
        for (const item of items) await store.create(collection, partition, item);
      }
    },
    async snapshot() {
      const contents: Record<string, unknown[]> = {};
      for (const [collection, partitions] of [...written].sort(byKey)) {
        for (const partition of [...partitions].sort()) {
          const items = (await queryAll(store, collection, partition)).flatMap(withoutZeroCounts);
          if (items.length === 0) continue;
          items.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
          contents[`${collection}/${partition}`] = items;
        }
      }
      return JSON.stringify(contents);
    },
  };
}

interface StoredRecord {
  id: string;
  counts?: Record<string, number>;
}

/**
 * A count reads 0 when its counter was never written, so a count taken and given
 * back (a refused S2 reserves its slot first) changes nothing: zero counts are left out.
 */
function withoutZeroCounts(record: StoredRecord): StoredRecord[] {
  if (!record.counts) return [record];
  const counts = Object.entries(record.counts).filter(([, count]) => count !== 0);
  return counts.length === 0 ? [] : [{ ...record, counts: Object.fromEntries(counts) }];
}

/** The files under `directory` with their sizes, as one canonical string. */
export async function folderSnapshot(directory: string): Promise<string> {
  const names = await readdir(directory, { recursive: true }).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [] as string[];
    throw error;
  });
  const files: string[] = [];
  for (const name of names.sort()) {
    const info = await stat(join(directory, name));
    if (info.isFile()) files.push(`${name}:${info.size}`);
  }
  return files.join("\n");
}

function byKey([a]: [string, unknown], [b]: [string, unknown]): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
