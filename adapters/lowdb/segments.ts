import { randomUUID } from "node:crypto";
import { Low } from "lowdb";
import { DataFile } from "lowdb/node";
import { compareValues } from "../../src/ports/evaluate-query.ts";
import type { Scalar, Stored, StoreRecord } from "../../src/ports/store.ts";
import { lowdbError } from "./errors.ts";

/** One record and its etag, as kept in a segment file. */
export interface Entry {
  record: StoreRecord;
  etag: string;
}

/**
 * A segment file through lowdb, written as compact JSON: a snapshot is rewritten whole, and
 * lowdb's default indentation made that a third slower.
 */
function segmentFile(path: string): DataFile<SegmentData> {
  return new DataFile<SegmentData>(path, {
    parse: (text) => JSON.parse(text) as SegmentData,
    stringify: (data) => JSON.stringify(data),
  });
}

/** The JSON of a segment file. */
interface SegmentData {
  records: Record<string, Entry>;
}

/** The lowest and highest value of one field in a segment; `null` stands for "missing". */
export type Bounds = [Scalar | null, Scalar | null];

/** A record's value of `field` as bounds keep it: a scalar, or `null` for anything else. */
export function boundValue(record: StoreRecord, field: string): Scalar | null {
  const value = (record as unknown as Record<string, unknown>)[field];
  const kind = typeof value;
  return kind === "string" || kind === "number" || kind === "boolean" ? (value as Scalar) : null;
}

/** The ids a segment owns: from `low` (inclusive) up to `high` (exclusive; none for the last). */
export interface IdRange {
  low: string;
  high?: string;
}

/**
 * One segment of a partition, loaded: its records in a `Map` (ids such as `__proto__` or
 * `toString` must not meet `Object.prototype`). Changes reach the disk through the journal;
 * the segment file is a snapshot, rewritten whole by compaction while the segment is dirty.
 */
export class Segment {
  readonly records: Map<string, Entry>;
  readonly path: string;
  readonly #db: Low<SegmentData>;
  #version = 0;
  #dirty = false;
  #persisted = true;
  readonly #bounds = new Map<string, { version: number; bounds: Bounds | undefined }>();

  private constructor(path: string, db: Low<SegmentData>, records: Map<string, Entry>) {
    this.path = path;
    this.#db = db;
    this.records = records;
  }

  /**
   * Reads a segment file; a missing file is an empty segment. Records outside `range` are
   * left out: they are copies a split moved to the next segment before a crash kept it from
   * rewriting this one (see `Partition`), and the next segment holds their true state.
   * @throws naming the file when it is not a segment file: a corrupt snapshot
   */
  static async load(path: string, range: IdRange): Promise<Segment> {
    const db = new Low<SegmentData>(segmentFile(path), { records: {} });
    try {
      await db.read();
    } catch (cause) {
      throw lowdbError(`cannot read ${path}`, cause);
    }
    const records = entriesOf(db.data, path, range);
    db.data = { records: {} };
    return new Segment(path, db, records);
  }

  /** A segment that does not exist on disk yet. */
  static create(path: string, records: Map<string, Entry>): Segment {
    const segment = new Segment(path, new Low(segmentFile(path), { records: {} }), records);
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

  /** Stores a copy of `record` under a fresh etag and returns another copy. */
  put<T extends StoreRecord>(record: T): Stored<T> {
    const entry = { record: structuredClone(record), etag: randomUUID() };
    this.set(record.id, entry);
    return { record: structuredClone(record), etag: entry.etag };
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

  /** Writes the whole segment through lowdb (temp file and rename) and marks it clean. */
  async write(): Promise<void> {
    // Object.fromEntries defines own properties, so an id `__proto__` survives.
    this.#db.data = { records: Object.fromEntries(this.records) };
    const version = this.#version;
    try {
      await this.#db.write();
    } catch (cause) {
      throw lowdbError(`cannot write ${this.path}`, cause);
    } finally {
      this.#db.data = { records: {} };
    }
    this.#persisted = true;
    if (this.#version === version) this.#dirty = false;
  }
}

/** Orders ids by UTF-16 code unit, as the manifest's binary search does. */
export function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function entriesOf(data: unknown, path: string, range: IdRange): Map<string, Entry> {
  const records = (data as Partial<SegmentData> | null)?.records;
  if (typeof records !== "object" || records === null || Array.isArray(records)) {
    throw lowdbError(`${path} is not a segment file`);
  }
  const entries = new Map<string, Entry>();
  for (const [id, entry] of Object.entries(records)) {
    if (typeof entry?.etag !== "string" || entry.record?.id !== id) {
      throw lowdbError(`${path} holds a malformed entry for id ${JSON.stringify(id)}`);
    }
    if (id >= range.low && (range.high === undefined || id < range.high)) entries.set(id, entry);
  }
  return entries;
}
