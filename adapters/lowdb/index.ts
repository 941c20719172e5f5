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
import type { Store } from "../../src/ports/store.ts";
import { LowdbStore } from "./store.ts";

/** Options of {@link createLowdbStore}. */
export interface LowdbStoreOptions {
  /** The folder holding every file of the store; created on the first write. */
  directory: string;
  /**
   * The most records one segment file holds before it splits in two. Smaller segments make
   * single-record writes cheaper and queries open more files. @default 1000
   */
  segmentSize?: number;
  /**
   * How many segments, across all partitions, stay loaded in memory before the least
   * recently used ones are dropped. A soft bound: segments of partitions with an operation
   * or a write in flight are kept, and a query loads all segments of its partition.
   * @default 200
   */
  maxLoadedSegments?: number;
}

/**
 * Creates a lowdb store over `options.directory`. Touches no file until the first call.
 * @throws {RangeError} when `segmentSize` or `maxLoadedSegments` is not a positive integer
 */
export function createLowdbStore(options: LowdbStoreOptions): Store {
  return new LowdbStore(
    options.directory,
    positive("segmentSize", options.segmentSize ?? 1000),
    positive("maxLoadedSegments", options.maxLoadedSegments ?? 200),
  );
}

function positive(option: string, value: number): number {
  if (Number.isInteger(value) && value > 0) return value;
  throw new RangeError(`lowdb store: ${option} must be a positive integer, not ${value}`);
}
