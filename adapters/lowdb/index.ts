/**
 * The embedded, file-backed `Store`: a journal and JSON snapshots written through lowdb, in
 * one directory that one process at a time may open (see `lock.ts`).
 *
 * Writes: a change is made in memory, appended to the journal (`journal.ts`: one CRC-checked
 * line per change, concurrent changes in one `write`), and acknowledged once its batch is
 * written, or also `fdatasync`ed with `durability: "machine"`. Reads come from memory.
 *
 * Snapshots: each (collection, partition) has a folder of segment files, records split by
 * id range and listed by a small manifest, loaded on first use and kept up to a bound.
 * Compaction (`compactor.ts`) writes the segments the journal changed, then deletes the
 * journal files they cover. Start replays what is left of the journal.
 *
 * Layout: `<directory>/journal-<n>.log`, `<directory>/formwork.lock/` (the lock),
 * `<directory>/formwork.pid` (its holder), and `<directory>/<collection>/<partition>/` with
 * `0.json`, further `<uuid>.json` segments once it splits, and `manifest.json` listing the
 * segments in id order; `name.json` naming the collection and partition where a name is too
 * long to spell out. Names are escaped (see `encodeName`) so that no name can leave `directory`.
 * @module
 */
import type { Durability } from "./journal.ts";
import { LowdbStore } from "./store.ts";

export type { BackupFiles } from "./backup.ts";
export { JournalCorruptError, SnapshotCorruptError } from "./errors.ts";
export type { Durability } from "./journal.ts";
export { StoreLockedError } from "./lock.ts";
export { type RepairReport, type RepairStep, repairLowdbStore } from "./repair.ts";
export type { LowdbStore } from "./store.ts";
export { type StoreFinding, type StoreReport, verifyLowdbStore } from "./verify.ts";

/** Options of {@link createLowdbStore}. */
export interface LowdbStoreOptions {
  /** The folder holding every file of the store; created when the store opens. */
  directory: string;
  /**
   * The most records one segment file holds; compaction splits larger ones. A page of a
   * query reads at least one whole segment, and snapshots rewrite whole segments, so
   * smaller segments make both cheaper, at the cost of more files. @default 200
   */
  segmentSize?: number;
  /**
   * How many segments, across all partitions, stay loaded in memory before the least
   * recently used ones are dropped: with the segment size, this bounds the memory the store
   * holds (about 32 × 200 records of 1 KB: 6 MB, which V8 holds about three times over
   * between its collections). A soft bound: segments of partitions with an operation in
   * flight, and segments with changes not yet in their snapshot (see `journalBytes`), are
   * kept, and a query that cannot use `orderFields` loads every segment of its partition.
   * @default 32
   */
  maxLoadedSegments?: number;
  /**
   * How many segment files' layouts are remembered: a page reads the files of segments that
   * are not loaded, whole the first time (checked against the file's checksum, its first
   * line parsed, its line starts and its blocks' CRCs taken), and then, while the file keeps
   * its first line (every rewrite changes it), only the blocks of the lines it needs, each
   * checked. About 16 KB each for files of 200 records with one order field: 8 MB at the
   * default. @default 512
   */
  maxFileLayouts?: number;
  /**
   * Fields that queries order by. For each, the manifest keeps the bounds of its values in
   * every segment file, so that a page ordered by it (and a window on it) reads only the
   * segments that can hold its records. Ordering by `id` needs none. Other fields still
   * work, reading every segment. @default ["created_date_utc", "sort_order", "due_at"]
   */
  orderFields?: readonly string[];
  /**
   * When a write is acknowledged: `"process"` once the journal's `write` returned (it
   * survives the process being killed), `"machine"` once it was `fdatasync`ed (it survives
   * a power loss, at the cost of a disk flush per batch of concurrent writes).
   * @default "process"
   */
  durability?: Durability;
  /**
   * How large the journal file grows before compaction writes the snapshots and starts a
   * new one. The records it changed stay loaded until then, so this also bounds memory:
   * about as many bytes of records as the journal holds. Larger means fewer snapshot
   * writes, and more to replay at start and to keep in memory. @default 8 MiB
   */
  journalBytes?: number;
  /**
   * Told what the store recovered from: a torn journal tail, a failed compaction, a lost
   * lock. @default `console.warn`
   */
  warn?: (message: string) => void;
}

/**
 * Creates a lowdb store over `options.directory`. Touches no file until `open()` or the
 * first call, which lock the directory and replay its journal.
 * @throws {RangeError} when `segmentSize`, `maxLoadedSegments`, `maxFileLayouts` or
 *   `journalBytes` is not a positive integer, or `durability` is neither `"process"` nor
 *   `"machine"`
 */
export function createLowdbStore(options: LowdbStoreOptions): LowdbStore {
  const durability = options.durability ?? "process";
  if (durability !== "process" && durability !== "machine") {
    throw new RangeError(
      `lowdb store: durability must be "process" or "machine", not ${durability}`,
    );
  }
  return new LowdbStore({
    directory: options.directory,
    segmentSize: positive("segmentSize", options.segmentSize ?? 200),
    maxLoadedSegments: positive("maxLoadedSegments", options.maxLoadedSegments ?? 32),
    maxFileLayouts: positive("maxFileLayouts", options.maxFileLayouts ?? 512),
    orderFields: options.orderFields ?? ["created_date_utc", "sort_order", "due_at"],
    durability,
    journalBytes: positive("journalBytes", options.journalBytes ?? 8 * 1024 * 1024),
    warn: options.warn ?? ((message) => console.warn(message)),
  });
}

function positive(option: string, value: number): number {
  if (Number.isInteger(value) && value > 0) return value;
  throw new RangeError(`lowdb store: ${option} must be a positive integer, not ${value}`);
}
