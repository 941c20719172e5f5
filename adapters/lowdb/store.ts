import { evaluateQuery } from "../../src/ports/evaluate-query.ts";
import {
  type Page,
  type Query,
  type Store,
  StoreConflictError,
  type Stored,
  type StoreRecord,
  type WriteOptions,
} from "../../src/ports/store.ts";
import { lowdbError } from "./errors.ts";
import { partitionFolder } from "./file-names.ts";
import { Partition } from "./partition.ts";
import { SegmentCache } from "./segment-cache.ts";
import type { Entry, Segment } from "./segments.ts";

/** The `Store` over lowdb files; see the module doc of `index.ts`. */
export class LowdbStore implements Store {
  readonly #directory: string;
  readonly #segmentSize: number;
  readonly #partitions = new Map<string, Partition>();
  readonly #cache: SegmentCache<Partition>;
  #closed = false;

  constructor(directory: string, segmentSize: number, maxLoadedSegments: number) {
    this.#directory = directory;
    this.#segmentSize = segmentSize;
    this.#cache = new SegmentCache<Partition>(maxLoadedSegments, (p) => this.#forget(p));
  }

  get<T extends StoreRecord>(collection: string, partition: string, id: string) {
    return this.#within(collection, partition, (p) =>
      p.run(async () => copyOut<T>((await p.view.segmentFor(id)).records.get(id))),
    );
  }

  create<T extends StoreRecord>(collection: string, partition: string, record: T) {
    return this.#within(collection, partition, (p) =>
      p.change(record.id, (segment) => {
        if (segment.records.has(record.id)) throw new StoreConflictError("exists");
        return segment.put(record);
      }),
    );
  }

  replace<T extends StoreRecord>(
    collection: string,
    partition: string,
    record: T,
    options?: WriteOptions,
  ) {
    return this.#within(collection, partition, (p) =>
      p.change(record.id, (segment) =>
        matches(segment.records.get(record.id), options) ? segment.put(record) : null,
      ),
    );
  }

  delete(collection: string, partition: string, id: string, options?: WriteOptions) {
    return this.#within(collection, partition, (p) =>
      p.change(id, (segment) => {
        if (!matches(segment.records.get(id), options)) return false;
        segment.remove(id);
        return true;
      }),
    );
  }

  query<T extends StoreRecord>(collection: string, partition: string, query?: Query) {
    return this.#within(collection, partition, (p) =>
      p.run(async (): Promise<Page<T>> => {
        const records = recordsOf(await p.view.allSegments()) as Iterable<T>;
        const page = evaluateQuery(records, query);
        return {
          items: page.items.map((item) => structuredClone(item)),
          continuation: page.continuation,
        };
      }),
    );
  }

  deletePartition(collection: string, partition: string) {
    return this.#within(collection, partition, (p) => p.clear());
  }

  async close() {
    this.#closed = true;
    const partitions = [...this.#partitions.values()];
    await Promise.all(partitions.map((p) => p.run(() => p.settle())));
    this.#partitions.clear();
  }

  async #within<T>(collection: string, name: string, op: (p: Partition) => Promise<T>) {
    if (this.#closed) throw lowdbError("the store is closed");
    const folder = partitionFolder(this.#directory, collection, name);
    let partition = this.#partitions.get(folder);
    if (!partition) {
      partition = new Partition(folder, this.#segmentSize, this.#cache);
      this.#partitions.set(folder, partition);
    }
    try {
      return await op(partition);
    } finally {
      this.#cache.trim();
      // Nothing loaded any more (deleted, or dropped after a failed write): no need to keep it.
      if (partition.idle && partition.loadedCount === 0) this.#forget(partition);
    }
  }

  #forget(partition: Partition): void {
    if (this.#partitions.get(partition.folder) === partition) {
      this.#partitions.delete(partition.folder);
    }
  }
}

function copyOut<T>(entry: Entry | undefined): Stored<T> | null {
  return entry ? { record: structuredClone(entry.record) as T, etag: entry.etag } : null;
}

/** Whether a record is there to write; throws when `ifMatch` is given and stale. */
function matches(entry: Entry | undefined, options?: WriteOptions): boolean {
  if (!entry) return false;
  if (options?.ifMatch !== undefined && options.ifMatch !== entry.etag) {
    throw new StoreConflictError("etag");
  }
  return true;
}

function* recordsOf(segments: Segment[]): Generator<StoreRecord> {
  for (const segment of segments) for (const entry of segment.records.values()) yield entry.record;
}
