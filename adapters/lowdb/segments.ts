import { randomUUID } from "node:crypto";
import { Low } from "lowdb";
import { DataFile } from "lowdb/node";
import type { Stored, StoreRecord } from "../../src/ports/store.ts";
import { lowdbError } from "./errors.ts";

/** One record and its etag, as kept in a segment file. */
export interface Entry {
  record: StoreRecord;
  etag: string;
}

/**
 * A segment file through lowdb, written as compact JSON: a whole segment is rewritten on
 * every change, and lowdb's default indentation made that a third slower.
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

/** The ids a segment owns: from `low` (inclusive) up to `high` (exclusive; none for the last). */
export interface IdRange {
  low: string;
  high?: string;
}

/**
 * One segment file of a partition, loaded: its records in a `Map` (ids such as `__proto__`
 * or `toString` must not meet `Object.prototype`), written back whole through lowdb.
 */
export class Segment {
  readonly records: Map<string, Entry>;
  readonly path: string;
  readonly #db: Low<SegmentData>;
  #version = 0;
  #writing: Promise<void> | undefined;
  #next: Promise<void> | undefined;

  private constructor(path: string, db: Low<SegmentData>, records: Map<string, Entry>) {
    this.path = path;
    this.#db = db;
    this.records = records;
  }

  /**
   * Reads a segment file; a missing file is an empty segment. Records outside `range` are
   * left out: they are copies a split moved to the next segment before a crash kept it from
   * rewriting this one (see `Partition`), and the next segment holds their true state.
   */
  static async load(path: string, range: IdRange): Promise<Segment> {
    const db = new Low<SegmentData>(segmentFile(path), { records: {} });
    try {
      await db.read();
    } catch (cause) {
      throw lowdbError(`cannot read ${path}`, cause);
    }
    return new Segment(path, db, entriesOf(db.data, path, range));
  }

  /** A segment that does not exist on disk yet. */
  static create(path: string, records: Map<string, Entry>): Segment {
    return new Segment(path, new Low<SegmentData>(segmentFile(path), { records: {} }), records);
  }

  /** Bumped by every change, so callers can tell whether an edit wrote anything. */
  get version(): number {
    return this.#version;
  }

  /** Stores a copy of `record` under a fresh etag and returns another copy. */
  put<T extends StoreRecord>(record: T): Stored<T> {
    const entry = { record: structuredClone(record), etag: randomUUID() };
    this.records.set(record.id, entry);
    this.#version++;
    return { record: structuredClone(record), etag: entry.etag };
  }

  /** Deletes the record with that id. */
  remove(id: string): void {
    this.records.delete(id);
    this.#version++;
  }

  /**
   * Moves the upper part of the records out, for a split. When `added` is the highest id, as
   * with time-ordered ids, only it moves: the segment stays full and appends keep filling a
   * fresh last segment. Otherwise the segment splits in half.
   */
  takeUpper(added: string): { low: string; records: Map<string, Entry> } {
    const ids = [...this.records.keys()].sort(compareIds);
    const cut = ids[ids.length - 1] === added ? ids.length - 1 : Math.floor(ids.length / 2);
    const moved = new Map<string, Entry>();
    for (const id of ids.slice(cut)) {
      moved.set(id, this.records.get(id) as Entry);
      this.records.delete(id);
    }
    this.#version++;
    return { low: ids[cut] as string, records: moved };
  }

  /**
   * Writes the whole segment through lowdb. At most one write is in flight and one waits
   * behind it; the waiting one serializes the records only when it starts, so a burst of
   * changes costs two serializations and every caller waits for two writes at most. (steno
   * coalesces too, but serializes on every call and resolves the caller that started a
   * chain only once the whole chain is written: under steady writes, possibly never.)
   */
  write(): Promise<void> {
    this.#next ??= this.#writeAfterCurrent();
    return this.#next;
  }

  async #writeAfterCurrent(): Promise<void> {
    // Also defers by a tick when nothing is in flight, so changes of the same tick join.
    await this.#writing?.catch(ignore);
    // Object.fromEntries defines own properties, so an id `__proto__` survives.
    this.#db.data = { records: Object.fromEntries(this.records) };
    const current = this.#db.write();
    this.#next = undefined;
    this.#writing = current;
    try {
      await current;
    } catch (cause) {
      throw lowdbError(`cannot write ${this.path}`, cause);
    } finally {
      if (this.#writing === current) this.#writing = undefined;
    }
  }
}

const ignore = () => {};

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
