import { closeSync, fstatSync, openSync, readSync } from "node:fs";
import { basename } from "node:path";
import type { Scalar, Stored, StoreRecord } from "formwork/ports";
import { compareValues, etagSource } from "formwork/ports/kit";
import { Writer } from "steno";
import { lowdbError } from "./errors.ts";
import type { FileLayouts } from "./file-layouts.ts";
import {
  boundValue,
  type Entry,
  encodeSegment,
  type FileLayout,
  type IdRange,
  type OpenSegmentFile,
  SegmentSnapshot,
} from "./snapshot-format.ts";

export { boundValue, type Entry, type IdRange };

/** The lowest and highest value of one field in a segment; `null` stands for "missing". */
export type Bounds = [Scalar | null, Scalar | null];

/**
 * Reads a segment file without loading it (see `SegmentSnapshot`). Read whole and checked
 * against its checksum, unless `layouts` holds what reading the very same file whole found
 * (kept up to date here): then only its first line is read now, and the blocks of the lines
 * asked for later, each checked (`SegmentSnapshot.need`). A missing file is an empty
 * segment. The snapshot reads its lines from a buffer the next read reuses (see
 * `readBytes`): use it at once, before anything awaited, then close it (the next read
 * closes it anyway).
 * @throws {SnapshotCorruptError} naming the file when it is damaged
 * @throws naming the file when it cannot be read
 */
export function readSnapshot(path: string, range: IdRange, layouts?: FileLayouts): SegmentSnapshot {
  latest?.close();
  const read = ++reads;
  const current = () => reads === read;
  const known = layouts?.get(path);
  const again = known ? readOnLayout(path, range, known, current) : undefined;
  if (again) {
    latest = again;
    return again;
  }
  const snapshot = new SegmentSnapshot(path, range, readBytes(path), current);
  if (layouts && snapshot.layout) layouts.set(path, snapshot.layout);
  return snapshot;
}

/** Reads so far: a snapshot's bytes are those of the latest read only. */
let reads = 0;
/** The latest snapshot read on a layout, whose file may still be open. */
let latest: SegmentSnapshot | undefined;

/**
 * A snapshot of the file at `path` on `known`, its file left open for the blocks, when the
 * file still opens with the first line `known` was found with; else `undefined` (read the
 * file whole: it changed, is gone, or is larger than the shared buffer).
 */
function readOnLayout(
  path: string,
  range: IdRange,
  known: FileLayout,
  current: () => boolean,
): SegmentSnapshot | undefined {
  if (known.size > scratchLimit) return undefined;
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch {
    return undefined;
  }
  let file: OpenSegmentFile | undefined;
  try {
    if (known.size > scratch.length) scratch = new Uint8Array(known.size);
    const bytes = scratch.subarray(0, known.size);
    const opening = known.firstLine.length;
    if (readInto(fd, bytes, 0, opening) < opening) return undefined;
    if (!SegmentSnapshot.onLayout(bytes.subarray(0, opening), known)) return undefined;
    let open = true;
    file = {
      read: (from, to) => {
        try {
          return readInto(fd, bytes, from, to);
        } catch (cause) {
          throw lowdbError(`cannot read ${path}`, cause);
        }
      },
      close: () => {
        if (open) closeSync(fd);
        open = false;
      },
    };
    return new SegmentSnapshot(path, range, bytes, current, { layout: known, file });
  } catch (cause) {
    throw lowdbError(`cannot read ${path}`, cause);
  } finally {
    if (!file) closeSync(fd);
  }
}

/**
 * A segment file's bytes, `null` when it is missing. Read synchronously: a segment is at
 * most `segmentSize` records (about 100 KB at the default 200), which the page cache
 * answers in tens of microseconds, while an asynchronous read makes four trips through
 * libuv's thread pool (open, stat, read, close) that a busy machine turns into
 * milliseconds: most of an S5 page that reads a segment not loaded. Read into one buffer
 * kept for the next read rather than a fresh one each time (as `readFileSync` allocates):
 * a fresh buffer of that size each page costs more than the read itself, in allocation
 * and in garbage collections. So the bytes are good only until the next call.
 */
function readBytes(path: string): Uint8Array | null {
  let fd: number;
  try {
    fd = openSync(path, "r");
  } catch (cause) {
    if ((cause as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw lowdbError(`cannot read ${path}`, cause);
  }
  try {
    return readUpTo(fd, fstatSync(fd).size);
  } catch (cause) {
    throw lowdbError(`cannot read ${path}`, cause);
  } finally {
    closeSync(fd);
  }
}

/** Up to `size` bytes from the start of `fd`, fewer at its end, into the shared buffer. */
function readUpTo(fd: number, size: number): Uint8Array {
  if (size > scratch.length && size <= scratchLimit) scratch = new Uint8Array(size);
  const bytes = size <= scratch.length ? scratch : new Uint8Array(size);
  return bytes.subarray(0, readInto(fd, bytes, 0, size));
}

/** Bytes `[from, to)` of `fd` into `bytes` at the same offsets: how many there were. */
function readInto(fd: number, bytes: Uint8Array, from: number, to: number): number {
  let done = 0;
  for (let read = -1; done < to - from && read !== 0; done += read) {
    read = readSync(fd, bytes, from + done, to - from - done, from + done);
  }
  return done;
}

/** The buffer segment files are read into; it grows to the largest file up to the limit. */
let scratch = new Uint8Array(256 * 1024);
const scratchLimit = 4 * 1024 * 1024;

/**
 * One segment of a partition, loaded: its records in a `Map` (ids such as `__proto__` or
 * `toString` must not meet `Object.prototype`). Changes reach the disk through the journal;
 * the segment file is a snapshot, rewritten whole by compaction while the segment is dirty.
 */
export class Segment {
  readonly records: Map<string, Entry>;
  readonly path: string;
  /** The file's name in the partition folder. */
  readonly file: string;
  readonly #orderFields: readonly string[];
  readonly #file: Writer;
  #version = 0;
  #dirty = false;
  #persisted = true;
  readonly #bounds = new Map<string, { version: number; bounds: Bounds | undefined }>();

  private constructor(path: string, orderFields: readonly string[], records: Map<string, Entry>) {
    this.path = path;
    this.file = basename(path);
    this.#orderFields = orderFields;
    this.#file = new Writer(path);
    this.records = records;
  }

  /**
   * Reads a segment file; a missing file is an empty segment. Records outside `range` are
   * left out: they are copies a split moved to the next segment before a crash kept it from
   * rewriting this one (see `Partition`), and the next segment holds their true state.
   * @throws naming the file when it is not a segment file: a corrupt snapshot
   */
  static async load(
    path: string,
    range: IdRange,
    orderFields: readonly string[],
  ): Promise<Segment> {
    return Segment.fromFile(path, readSnapshot(path, range), orderFields);
  }

  /** The segment a snapshot of its file holds (clean: the file holds the same). */
  static fromFile(
    path: string,
    snapshot: SegmentSnapshot,
    orderFields: readonly string[],
  ): Segment {
    return new Segment(path, orderFields, snapshot.entries());
  }

  /** A segment that does not exist on disk yet; its file indexes `orderFields`. */
  static create(
    path: string,
    records: Map<string, Entry>,
    orderFields: readonly string[],
  ): Segment {
    const segment = new Segment(path, orderFields, records);
    segment.#dirty = true;
    segment.#persisted = false;
    return segment;
  }

  /** Bumped by every change, so callers can tell whether an edit changed anything. */
  get version(): number {
    return this.#version;
  }

  /** Whether its file exists: a segment split off another one has none until written. */
  get persisted(): boolean {
    return this.#persisted;
  }

  /** Whether it holds changes its file does not: it must stay loaded until written. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /**
   * The lowest and highest value of `field` among the records, in `compareValues` order
   * (`null` for a record lacking it); `undefined` when the segment is empty. Kept until the
   * next change.
   */
  boundsOf(field: string): Bounds | undefined {
    const kept = this.#bounds.get(field);
    if (kept?.version === this.#version) return kept.bounds;
    let bounds: Bounds | undefined;
    for (const { record } of this.records.values()) {
      const value = boundValue(record, field);
      if (!bounds) bounds = [value, value];
      else if (compareValues(value, bounds[0]) < 0) bounds[0] = value;
      else if (compareValues(value, bounds[1]) > 0) bounds[1] = value;
    }
    this.#bounds.set(field, { version: this.#version, bounds });
    return bounds;
  }

  /**
   * Stores `record` under a fresh etag and returns it: the store owns what a write is given
   * (the Store port), so neither is copied; reads still hand out copies.
   */
  put<T extends StoreRecord>(record: T): Stored<T> {
    const entry = { record, etag: newEtag() };
    this.set(record.id, entry);
    return { record, etag: entry.etag };
  }

  /** Deletes the record with that id. */
  remove(id: string): void {
    this.set(id, undefined);
  }

  /** Sets the entry of `id` as is (`undefined` deletes it): replaying, or undoing. */
  set(id: string, entry: Entry | undefined): void {
    if (entry) this.records.set(id, entry);
    else this.records.delete(id);
    this.#version++;
    this.#dirty = true;
  }

  /**
   * The records from the `segmentSize`-th on (by id), in chunks of `segmentSize`, for a
   * split; the segment itself is left as is. With time-ordered ids that leaves full
   * segments behind and the newest records in the last one.
   */
  overflow(segmentSize: number): { low: string; records: Map<string, Entry> }[] {
    const ids = [...this.records.keys()].sort(compareIds);
    const chunks: { low: string; records: Map<string, Entry> }[] = [];
    for (let start = segmentSize; start < ids.length; start += segmentSize) {
      const records = new Map<string, Entry>();
      for (const id of ids.slice(start, start + segmentSize)) {
        records.set(id, this.records.get(id) as Entry);
      }
      chunks.push({ low: ids[start] as string, records });
    }
    return chunks;
  }

  /** Forgets records a split moved to other segments; the file is rewritten next. */
  forget(ids: Iterable<string>): void {
    for (const id of ids) this.records.delete(id);
    this.#version++;
    this.#dirty = true;
  }

  /**
   * Writes the whole segment (a header line with the order index, then a line per record)
   * through steno's `Writer`, lowdb's own (temp file and rename), and marks it clean. The
   * file is written from bytes, not text (`sealLines`), which lowdb's `TextFile` would need.
   */
  async write(): Promise<void> {
    const version = this.#version;
    try {
      await this.#file.write(encodeSegment(this.records, this.#orderFields));
    } catch (cause) {
      throw lowdbError(`cannot write ${this.path}`, cause);
    }
    this.#persisted = true;
    if (this.#version === version) this.#dirty = false;
  }
}

/** The etags of this process's writes (a new prefix each start). */
const newEtag = etagSource();

/** Orders ids by UTF-16 code unit, as the manifest's binary search does. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
