/**
 * The embedded, file-backed `Store`: JSON files written through lowdb, one folder per
 * (collection, partition), records split by id range into segment files listed by a small
 * manifest. A call reads or writes only the files of its own partition and, except for a
 * query or a partition delete, only the one segment owning its id, so its cost does not grow
 * with the data. Loaded segments stay in memory (up to a bound) and a write resolves once
 * its segment file is written, atomically (temp file and rename, by lowdb's steno). Files
 * are not fsynced: an acknowledged write survives a crash of the process, and only the
 * operating system's own guarantees cover a crash of the machine.
 *
 * Single process only: the store trusts its in-memory view of the files, and etag checks
 * are atomic only within the process, so two processes sharing a directory would overwrite
 * each other's writes. Give each process its own directory.
 *
 * Layout: `<directory>/<collection>/<partition>/` with `0.json`, the first segment, further
 * `<uuid>.json` segments once it splits, and `manifest.json` listing the segments in id
 * order. Names are escaped (see `encodeName`) so that no name can leave `directory`.
 * @module
 */
import type { Durability } from "./journal.ts";
import { LowdbStore } from "./store.ts";

export type { Durability } from "./journal.ts";
export { StoreLockedError } from "./lock.ts";
export type { LowdbStore } from "./store.ts";

/** Options of {@link createLowdbStore}. */
export interface LowdbStoreOptions {
  /** The folder holding every file of the store; created when the store opens. */
  directory: string;
  /**
   * The most records one segment file holds; compaction splits larger ones. Smaller
   * segments make snapshots cheaper and queries open more files. @default 1000
   */
  segmentSize?: number;
  /**
   * How many segments, across all partitions, stay loaded in memory before the least
   * recently used ones are dropped. A soft bound: segments of partitions with an operation
   * in flight, and segments with changes not yet in their snapshot, are kept, and a query
   * loads all segments of its partition. @default 200
   */
  maxLoadedSegments?: number;
  /**
   * When a write is acknowledged: `"process"` once the journal's `write` returned (it
   * survives the process being killed), `"machine"` once it was `fdatasync`ed (it survives
   * a power loss, at the cost of a disk flush per batch of concurrent writes).
   * @default "process"
   */
  durability?: Durability;
  /**
   * How large the journal file grows before compaction writes the snapshots and starts a
   * new one. Larger means fewer snapshot writes, and more to replay at start and to keep
   * in memory. @default 16 MiB
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
 * @throws {RangeError} when `segmentSize`, `maxLoadedSegments` or `journalBytes` is not a
 *   positive integer, or `durability` is neither `"process"` nor `"machine"`
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
    segmentSize: positive("segmentSize", options.segmentSize ?? 1000),
    maxLoadedSegments: positive("maxLoadedSegments", options.maxLoadedSegments ?? 200),
    durability,
    journalBytes: positive("journalBytes", options.journalBytes ?? 16 * 1024 * 1024),
    warn: options.warn ?? ((message) => console.warn(message)),
  });
}

function positive(option: string, value: number): number {
  if (Number.isInteger(value) && value > 0) return value;
  throw new RangeError(`lowdb store: ${option} must be a positive integer, not ${value}`);
}
