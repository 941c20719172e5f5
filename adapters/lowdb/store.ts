import { basename, dirname } from "node:path";
import {
  type BatchOp,
  type Page,
  type Query,
  type ScanOptions,
  type Store,
  StoreConflictError,
  type Stored,
  type StoreRecord,
  type StoreStats,
  type WriteOptions,
} from "formwork/ports";
import { copyRecord, type PartitionPlace, scanPartitions } from "formwork/ports/kit";
import { type BackupFiles, backupInto } from "./backup.ts";
import { runBatch } from "./batch.ts";
import { Compactor } from "./compactor.ts";
import { lowdbError, SnapshotCorruptError } from "./errors.ts";
import { FileLayouts } from "./file-layouts.ts";
import { decodeName, partitionFolder } from "./file-names.ts";
import { FileGate } from "./gate.ts";
import { type Durability, Journal } from "./journal.ts";
import type { JournalEntry } from "./journal-entries.ts";
import { listJournals, readJournal } from "./journal-files.ts";
import { lockDirectory } from "./lock.ts";
import { Partition, type PartitionPlace as Place } from "./partition.ts";
import { nameFromRecords, partitionFolders } from "./partition-names.ts";
import { ReadFromFile, readPage } from "./range-query.ts";
import { SegmentCache } from "./segment-cache.ts";
import type { Entry } from "./segments.ts";
import { parseRecordJson } from "./snapshot-format.ts";

/** The settings of a {@link LowdbStore}, defaults applied. */
export interface LowdbSettings {
  directory: string;
  segmentSize: number;
  maxLoadedSegments: number;
  maxFileLayouts: number;
  orderFields: readonly string[];
  durability: Durability;
  journalBytes: number;
  warn: (message: string) => void;
}

/** What the store holds while open: its lock, journal and partitions. */
interface Opened {
  release: () => Promise<void>;
  journal: Journal;
  compactor: Compactor;
}

/** How many partitions without loaded segments keep their manifest in memory. */
const KEPT_MANIFESTS = 64;

/** The `Store` over lowdb files and a journal; see the module doc of `index.ts`. */
export class LowdbStore implements Store {
  readonly #settings: LowdbSettings;
  readonly #partitions = new Map<string, Partition>();
  /**
   * Folder names by collection and partition: encoding a name costs more than the rest of a
   * point read, and every call needs it. Bounded by clearing, as the names are cheap to redo.
   */
  readonly #folders = new Map<string, string>();
  readonly #cache: SegmentCache<Partition>;
  readonly #layouts: FileLayouts;
  // Partitions with no segment loaded, kept for their manifest (pages read segment files
  // without loading them), least recently used first; at most `KEPT_MANIFESTS` of them.
  readonly #unloaded = new Map<string, Partition>();
  readonly #gate = new FileGate();
  #opened: Promise<Opened> | undefined;
  /** What `#opened` resolved to, for the figures `stats` reads without waiting. */
  #current: Opened | undefined;
  #closed = false;

  constructor(settings: LowdbSettings) {
    this.#settings = settings;
    this.#cache = new SegmentCache<Partition>(settings.maxLoadedSegments, (p) => this.#forget(p));
    this.#layouts = new FileLayouts(settings.maxFileLayouts);
  }

  /**
   * Locks the directory and replays the journal; every other call does this first. Call it
   * at start to fail early when another process holds the directory.
   * @throws {StoreLockedError} when another live process holds the directory
   * @throws {JournalCorruptError} when a journal file is damaged in the middle
   */
  async open(): Promise<void> {
    await this.#open();
  }

  get<T extends StoreRecord>(collection: string, partition: string, id: string) {
    const loaded = this.#loadedEntry(collection, partition, id);
    if (loaded !== undefined) return Promise.resolve(copyOut<T>(loaded ?? undefined));
    return this.#within(collection, partition, (p) =>
      p.run(async () => {
        const segment = p.view.loadedSegmentFor(id) ?? (await p.view.segmentFor(id));
        return copyOut<T>(segment.records.get(id));
      }),
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
        const page = await readPage<T>(p.view, query);
        // Records of loaded segments are copied: records are JSON (that is what the files
        // hold), and one JSON round trip of them all costs a fraction of a structuredClone
        // per record. Those parsed from a file for this page are already the caller's own.
        const shared: StoreRecord[] = [];
        for (const item of page.items)
          if (!(item instanceof ReadFromFile)) shared.push(item.record);
        const copies = shared.length > 0 ? (JSON.parse(JSON.stringify(shared)) as T[]) : [];
        let next = 0;
        // A record read from its line comes with the line's text of it (`Stored.json`),
        // and is parsed on first read when the page did not need to (`ReadFromFile`).
        const items = page.items.map((item): Stored<T> => {
          if (!(item instanceof ReadFromFile))
            return { record: copies[next++] as T, etag: item.etag };
          const { record, etag, json } = item as ReadFromFile<T>;
          if (record === undefined) return unparsed<T>(etag, json as string);
          return json === undefined ? { record, etag } : { record, etag, json };
        });
        return { items, continuation: page.continuation };
      }),
    );
  }

  /**
   * Every partition folder on disk and every partition held in memory (written since the
   * last compaction, maybe with no folder yet), each paged by `query` (`scanPartitions`).
   * Folder names decode back to their names; shortened ones are named by their name file,
   * or by their records (`partition-names.ts`).
   */
  async scan(options?: ScanOptions) {
    if (this.#closed) throw lowdbError("the store is closed");
    await this.#open();
    const places = new Map<string, PartitionPlace>();
    for (const partition of this.#partitions.values()) {
      places.set(partition.folder, { collection: partition.collection, partition: partition.name });
    }
    for (const { folder, place } of await partitionFolders(this.#settings.directory)) {
      if (places.has(folder)) continue;
      places.set(folder, place ?? (await this.#nameFromRecords(folder)));
    }
    return scanPartitions([...places.values()], (c, p, q) => this.query(c, p, q), options);
  }

  /** Atomic across partitions and crashes: one journal entry (see `batch.ts`). */
  async batch(ops: readonly BatchOp[]) {
    if (this.#closed) throw lowdbError("the store is closed");
    // Once open, without a turn: the batch holds its partitions at the call, in call order
    // with the reads and writes called after it (`get` answers at once when none is queued).
    const { journal } = this.#current ?? (await this.#open());
    const touched = new Set<Partition>();
    const partitionOf = (op: BatchOp) => {
      const partition = this.#partitionOf(op.collection, op.partition, journal);
      touched.add(partition);
      return partition;
    };
    try {
      return await runBatch(ops, partitionOf, journal);
    } catch (error) {
      this.#reportDamage(error);
      throw error;
    } finally {
      this.#cache.trim();
      for (const partition of touched) {
        if (partition.idle && partition.loadedCount === 0) this.#forget(partition);
      }
    }
  }

  deletePartition(collection: string, partition: string) {
    return this.#within(collection, partition, (p) => p.clear());
  }

  /**
   * Writes into `target` a copy of the store that a store can be opened on, holding every
   * write acknowledged before the call, while calls go on: see `backup.ts`. Compaction and
   * partition deletions wait while the files are gathered (hard links, so briefly); record
   * reads and writes do not. Put `target` on the same file system as the store's directory
   * (files are copied, not linked, elsewhere) and outside it.
   * @param target a folder that does not exist yet; its parent must
   * @returns how many files and bytes the copy holds
   * @throws when a file cannot be linked or copied; `target` may then hold part of a copy,
   *   which the caller removes
   */
  async backupInto(target: string): Promise<BackupFiles> {
    if (this.#closed) throw lowdbError("the store is closed");
    const { journal } = await this.#open();
    return backupInto(this.#settings.directory, target, journal, this.#gate);
  }

  /**
   * The size of the journal file being written and the compactions finished since the
   * store opened, for the service's metrics; nothing before the store opened.
   */
  stats(): StoreStats {
    const opened = this.#current;
    if (!opened || this.#closed) return {};
    return { journalBytes: opened.journal.position.bytes, compactions: opened.compactor.finished };
  }

  /** Waits for the journal, writes every snapshot, and releases the directory. */
  async close() {
    if (this.#closed) return;
    this.#closed = true;
    const opened = await this.#opened?.catch(() => undefined);
    if (!opened) return;
    await opened.journal.close();
    await opened.compactor.finish();
    this.#partitions.clear();
    this.#unloaded.clear();
    await opened.release();
  }

  #open(): Promise<Opened> {
    // A failed start (the directory locked, a corrupt snapshot) is tried again by the next call.
    this.#opened ??= this.#start().catch((error: unknown) => {
      this.#opened = undefined;
      throw error;
    });
    return this.#opened;
  }

  async #start(): Promise<Opened> {
    const { directory, durability, warn } = this.#settings;
    let journal: Journal | undefined;
    const release = await lockDirectory(directory, (error) => {
      warn(`lowdb store: lost the lock of ${directory}; refusing writes: ${error.message}`);
      journal?.fail(error);
    });
    try {
      const replayed = await listJournals(directory);
      // Every file is read (and checked) before anything is written: a corrupt journal
      // stops the start with the folder as it was, without even a new, empty journal file.
      const files: JournalEntry[][] = [];
      for (const old of replayed) files.push(await readJournal(directory, old, warn));
      const seq = (replayed.at(-1) ?? 0) + 1;
      const partitions = () => [...this.#partitions.values()];
      const compactor = new Compactor(this.#settings, partitions, this.#gate);
      journal = await Journal.open(directory, seq, durability, (bytes) => compactor.grown(bytes));
      compactor.start(journal);
      for (const entry of files.flat()) {
        for (const change of entry.o === "batch" ? entry.b : [entry]) {
          await this.#partitionOf(change.c, change.p, journal).replay(change);
        }
      }
      if (replayed.length > 0) compactor.soon();
      this.#current = { release, journal, compactor };
      return this.#current;
    } catch (error) {
      await journal?.close();
      await release();
      throw error;
    }
  }

  async #within<T>(collection: string, name: string, op: (p: Partition) => Promise<T>) {
    if (this.#closed) throw lowdbError("the store is closed");
    // Once open, `op` is queued on the partition at the call, in call order (see `batch`).
    const { journal } = this.#current ?? (await this.#open());
    const partition = this.#partitionOf(collection, name, journal);
    try {
      return await op(partition);
    } catch (error) {
      this.#reportDamage(error);
      throw error;
    } finally {
      this.#cache.trim();
      if (partition.idle && partition.loadedCount === 0) this.#forget(partition);
      this.#trimUnloaded();
    }
  }

  /**
   * The entry of `id` (`null` when there is none), read at once when the store is open,
   * nothing is queued or running on its partition and its segment is loaded: what the queued
   * read of `get` would answer then, without its promises and turns (S2 reads the form's
   * counter on every post: hot path). Every call made before it on an open store is queued
   * on its partition by then, so reads still answer in call order. `undefined` when the
   * read must queue.
   */
  #loadedEntry(collection: string, name: string, id: string): Entry | null | undefined {
    const opened = this.#current;
    if (!opened || this.#closed) return undefined;
    const partition = this.#partitionOf(collection, name, opened.journal);
    if (partition.busy) return undefined;
    const segment = partition.view.loadedSegmentFor(id);
    return segment ? (segment.records.get(id) ?? null) : undefined;
  }

  /** Tells `warn` which file a call found damaged: the call fails (503), the log says why. */
  #reportDamage(error: unknown): void {
    if (!(error instanceof SnapshotCorruptError)) return;
    this.#settings.warn(
      `${error.message}; it is not served (answered 503) until it is repaired or restored`,
    );
  }

  #partitionOf(collection: string, name: string, journal: Journal): Partition {
    const key = `${collection}\u0000${name}`;
    let folder = this.#folders.get(key);
    if (folder === undefined) {
      folder = partitionFolder(this.#settings.directory, collection, name);
      if (this.#folders.size >= 10_000) this.#folders.clear();
      this.#folders.set(key, folder);
    }
    let partition = this.#partitions.get(folder);
    if (!partition) {
      const place = { collection, name, folder };
      partition = this.#partition(place, journal);
      this.#partitions.set(folder, partition);
    }
    return partition;
  }

  #partition(place: Place, journal: Journal): Partition {
    const held = { segments: this.#cache, fileLayouts: this.#layouts };
    return new Partition(place, this.#settings, held, journal, this.#gate);
  }

  /** Names a shortened folder written before name files from its records (`nameFromRecords`). */
  async #nameFromRecords(folder: string): Promise<PartitionPlace> {
    const collection = decodeName(basename(dirname(folder)));
    if (collection === undefined) return nameFromRecords(folder, "", []);
    const { journal } = await this.#open();
    // Read under a name of its own: the real one is what this finds out.
    const place = { collection, name: `\u0000${folder}`, folder };
    const partition = this.#partition(place, journal);
    const records = await partition.run(async () =>
      (await partition.view.allSegments()).flatMap((s) => [...s.records.values()]),
    );
    this.#cache.trim();
    return nameFromRecords(
      folder,
      collection,
      records.map(({ record }) => record),
    );
  }

  /** Keeps a partition without loaded segments among the recently used ones. */
  #forget(partition: Partition): void {
    if (this.#partitions.get(partition.folder) !== partition) return;
    this.#unloaded.delete(partition.folder);
    this.#unloaded.set(partition.folder, partition);
  }

  /** Drops the least recently used partitions without loaded segments beyond the bound. */
  #trimUnloaded(): void {
    for (const [folder, partition] of this.#unloaded) {
      if (this.#unloaded.size <= KEPT_MANIFESTS) return;
      this.#unloaded.delete(folder);
      const unused = partition.idle && partition.loadedCount === 0;
      if (unused && this.#partitions.get(folder) === partition) this.#partitions.delete(folder);
    }
  }
}

/**
 * A plain `Stored` whose record is parsed from `json` on first read of `record` (an own,
 * enumerable accessor: spread, `JSON.stringify` and comparisons see a record as ever).
 */
function unparsed<T>(etag: string, json: string): Stored<T> {
  const stored = {} as Stored<T>;
  Object.defineProperty(stored, "record", recordAccessor);
  stored.etag = etag;
  stored.json = json;
  return stored;
}

/**
 * The accessor of every unparsed `Stored`'s `record`, one for all: an accessor of functions
 * made for one object gives V8 a hidden class for that object alone, whose getter keeps
 * the page's lines alive past collections of the young generation (docs/design.md §18).
 * The text comes from bytes that matched their checksum, as `encodeSegment` wrote it.
 */
const recordAccessor: PropertyDescriptor = {
  get(this: Stored<unknown>) {
    return settleRecord(this, parseRecordJson(this.json as string));
  },
  set(this: object, value: unknown) {
    settleRecord(this, value);
  },
  enumerable: true,
  configurable: true,
};

function settleRecord(stored: object, record: unknown): unknown {
  Object.defineProperty(stored, "record", {
    value: record,
    writable: true,
    enumerable: true,
    configurable: true,
  });
  return record;
}

function copyOut<T>(entry: Entry | undefined): Stored<T> | null {
  return entry ? { record: copyRecord(entry.record) as T, etag: entry.etag } : null;
}

/** Whether a record is there to write; throws when `ifMatch` is given and stale. */
function matches(entry: Entry | undefined, options?: WriteOptions): boolean {
  if (!entry) return false;
  if (options?.ifMatch !== undefined && options.ifMatch !== entry.etag) {
    throw new StoreConflictError("etag");
  }
  return true;
}
