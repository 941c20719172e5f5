import type { Scalar, StoreRecord } from "formwork/ports";
import { compareValues } from "formwork/ports/kit";
import { lowdbError } from "./errors.ts";

/** One record and its etag, as kept in a segment file. */
export interface Entry {
  record: StoreRecord;
  etag: string;
}

/** The ids a segment owns: from `low` (inclusive) up to `high` (exclusive; none for the last). */
export interface IdRange {
  low: string;
  high?: string;
}

/** A record's value of `field` as bounds and indexes keep it: a scalar, or `null` for anything else. */
export function boundValue(record: StoreRecord, field: string): Scalar | null {
  const value = (record as unknown as Record<string, unknown>)[field];
  const kind = typeof value;
  return kind === "string" || kind === "number" || kind === "boolean" ? (value as Scalar) : null;
}

// The first line of a segment file in the line format; files without it are the older
// single-JSON format `{"records":{id:entry}}`, still read.
const FORMAT = "formwork-segment/2";

/** The first line of a segment file: the format, the record count, the order index. */
interface Header {
  format: typeof FORMAT;
  count: number;
  /** For each order field, its value (`boundValue`) in each record line, in line order. */
  order: Record<string, (Scalar | null)[]>;
}

/**
 * A segment file's text: a header line, then one JSON line per entry, in id order. The
 * header's order index lets a reader parse only the lines a page needs.
 */
export function encodeSegment(
  records: ReadonlyMap<string, Entry>,
  orderFields: readonly string[],
): string {
  const ids = [...records.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const entries = ids.map((id) => records.get(id) as Entry);
  const order: Header["order"] = {};
  for (const field of orderFields) order[field] = entries.map((e) => boundValue(e.record, field));
  const header: Header = { format: FORMAT, count: entries.length, order };
  const lines = [JSON.stringify(header)];
  for (const entry of entries)
    lines.push(JSON.stringify({ record: entry.record, etag: entry.etag }));
  return `${lines.join("\n")}\n`;
}

/**
 * A segment file read but not parsed beyond its header: lines are parsed on demand and
 * checked then. Records outside the segment's id `range` (copies a crashed split left) are
 * skipped. A file in the older single-JSON format is parsed whole at once.
 */
export class SegmentSnapshot {
  readonly #path: string;
  readonly #range: IdRange;
  readonly #text: string;
  readonly #header: Header | undefined;
  // Start offsets of the record lines, and one past the end of the last.
  readonly #starts: number[] = [];
  readonly #eager: Map<string, Entry> | undefined;
  /** Whether the file is in the older single-JSON format (rewrite it in the line format). */
  readonly legacy: boolean = false;

  /**
   * @param text the file's content, `null` for a missing file (an empty segment)
   * @throws naming the file when it is not a segment file, or is cut short
   */
  constructor(path: string, range: IdRange, text: string | null) {
    this.#path = path;
    this.#range = range;
    this.#text = text ?? "";
    if (text === null) {
      this.#eager = new Map();
      return;
    }
    const end = text.indexOf("\n");
    if (!text.startsWith(`{"format":"${FORMAT}"`) || end < 0) {
      this.#eager = entriesOf(parse(text, path), path, range);
      this.legacy = true;
      return;
    }
    const header = parse(text.slice(0, end), path) as Partial<Header> | null;
    if (typeof header?.count !== "number" || typeof header.order !== "object" || !header.order) {
      throw lowdbError(`${path} is not a segment file`);
    }
    let at = end + 1;
    while (at < text.length) {
      this.#starts.push(at);
      const next = text.indexOf("\n", at);
      if (next < 0) break;
      at = next + 1;
    }
    this.#starts.push(text.length);
    if (this.#starts.length - 1 !== header.count || !text.endsWith("\n")) {
      throw lowdbError(`${path} is cut short: ${this.#starts.length - 1} of ${header.count} lines`);
    }
    for (const values of Object.values(header.order)) {
      if (!Array.isArray(values) || values.length !== header.count) {
        throw lowdbError(`${path} has a malformed order index`);
      }
    }
    this.#header = header as Header;
  }

  /** Every entry in its range, parsed. */
  entries(): Map<string, Entry> {
    if (this.#eager) return this.#eager;
    const entries = new Map<string, Entry>();
    for (let line = 0; line < this.#starts.length - 1; line++) {
      const entry = this.#entryAt(line);
      if (entry) entries.set(entry.record.id, entry);
    }
    return entries;
  }

  /**
   * The lines whose `field` value may lie in `[low, high]`, sorted by that value (highest
   * first when `descending`), each with its value; `undefined` when the file has no index
   * of `field` (or a record without a scalar value there): then read `entries()`.
   * @param inWindow whether a value lies in the window the query allows
   */
  candidates(
    field: string,
    inWindow: (value: Scalar) => boolean,
    descending: boolean,
  ): { line: number; value: Scalar }[] | undefined {
    const values = this.#header?.order[field];
    if (!values) return undefined;
    const found: { line: number; value: Scalar }[] = [];
    for (let line = 0; line < values.length; line++) {
      const value = values[line];
      if (value === null || value === undefined) return undefined;
      if (inWindow(value)) found.push({ line, value });
    }
    found.sort((a, b) => (descending ? -1 : 1) * compareValues(a.value, b.value));
    return found;
  }

  /** The entry on record line `line` (from `candidates`), or `undefined` if outside the range. */
  entryAt(line: number): Entry | undefined {
    return this.#entryAt(line);
  }

  #entryAt(line: number): Entry | undefined {
    const text = this.#text.slice(this.#starts[line], (this.#starts[line + 1] as number) - 1);
    const entry = parse(text, this.#path) as Partial<Entry> | null;
    const id = entry?.record?.id;
    if (typeof entry?.etag !== "string" || typeof id !== "string") {
      throw lowdbError(`${this.#path} holds a malformed entry on line ${line + 2}`);
    }
    return inRange(id, this.#range) ? (entry as Entry) : undefined;
  }
}

function parse(text: string, path: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw lowdbError(`cannot read ${path}`, cause);
  }
}

function inRange(id: string, range: IdRange): boolean {
  return id >= range.low && (range.high === undefined || id < range.high);
}

/** The entries of a file in the older format, `{"records":{id:entry}}`. */
function entriesOf(data: unknown, path: string, range: IdRange): Map<string, Entry> {
  const records = (data as { records?: unknown } | null)?.records;
  if (typeof records !== "object" || records === null || Array.isArray(records)) {
    throw lowdbError(`${path} is not a segment file`);
  }
  const entries = new Map<string, Entry>();
  for (const [id, entry] of Object.entries(records as Record<string, Partial<Entry>>)) {
    if (typeof entry?.etag !== "string" || entry.record?.id !== id) {
      throw lowdbError(`${path} holds a malformed entry for id ${JSON.stringify(id)}`);
    }
    if (inRange(id, range)) entries.set(id, entry as Entry);
  }
  return entries;
}
