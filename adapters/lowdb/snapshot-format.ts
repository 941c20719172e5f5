import { Buffer } from "node:buffer";
import { crc32 } from "node:zlib";
import type { Scalar, StoreRecord } from "formwork/ports";
import { compareValues, leadingId } from "formwork/ports/kit";
import { checkSeal, sealLines } from "./checksums.ts";
import { SnapshotCorruptError } from "./errors.ts";

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

// The format segment files are written in: the line format whose first line opens with a
// checksum of the rest of the file (`checksums.ts`). Files of `formwork-segment/2` (the
// same without the checksum) and of the older single-JSON format `{"records":{id:entry}}`
// are still read; compaction rewrites them in this one when their segment changes.
const FORMAT = "formwork-segment/3";
const UNSEALED = "formwork-segment/2";

/** The first line of a segment file: the format, the record count, the order index. */
export interface SegmentHeader {
  format: typeof FORMAT | typeof UNSEALED;
  count: number;
  /** For each order field, its value (`boundValue`) in each record line, in line order. */
  order: Record<string, (Scalar | null)[]>;
}

/**
 * What reading a sealed segment file whole found besides its lines: its length, its first
 * line (the checksum and the order index among its bytes), that line parsed, where each
 * record line starts, and the CRC-32 of each block of {@link BLOCK_LINES} record lines,
 * taken from bytes that matched the file's checksum. Given back to {@link SegmentSnapshot}
 * for the next read of the same file, it lets that read take only the blocks holding the
 * lines it needs, each checked against its CRC (docs/design.md §18, "Range reads").
 */
export interface FileLayout {
  readonly size: number;
  readonly firstLine: Buffer;
  readonly header: SegmentHeader;
  readonly starts: readonly number[];
  readonly blocks: readonly number[];
}

/**
 * Record lines per checked block of a file read again on its layout: a page reads about
 * half a segment, and a smaller block costs a CRC call more per line than it saves in bytes.
 */
export const BLOCK_LINES = 16;

/**
 * The file a snapshot on a known layout reads its blocks from, kept open until the snapshot
 * is closed, so that a file renamed over it meanwhile (compaction) is not the one read.
 */
export interface OpenSegmentFile {
  /**
   * Reads bytes `[from, to)` into the snapshot's buffer at the same offsets.
   * @returns how many it read: fewer when the file is shorter
   */
  read(from: number, to: number): number;
  close(): void;
}

/**
 * A segment file's text: a header line (format, checksum, count, order index), then one
 * JSON line per entry, in id order. The header's order index lets a reader parse only the
 * lines a page needs; the checksum covers every byte after it, so the whole file is checked
 * once when it is read.
 */
export function encodeSegment(
  records: ReadonlyMap<string, Entry>,
  orderFields: readonly string[],
): Buffer {
  const ids = [...records.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const entries = ids.map((id) => records.get(id) as Entry);
  const order: SegmentHeader["order"] = {};
  for (const field of orderFields) order[field] = entries.map((e) => boundValue(e.record, field));
  const lines = [`,${JSON.stringify({ count: entries.length, order }).slice(1)}`];
  for (const entry of entries)
    lines.push(JSON.stringify({ record: entry.record, etag: entry.etag }));
  return sealLines(FORMAT, lines);
}

/**
 * A segment file read but not parsed beyond its header: lines are parsed on demand, from the
 * file's bytes (only the lines a page needs are ever decoded). Read whole, the file's
 * checksum is checked at once. Read again on a known layout (see `onLayout`), only the
 * blocks of the lines asked for are read, each checked against its CRC. Records outside the
 * segment's id `range` (copies a crashed split left) are skipped. A file in the older
 * single-JSON format is parsed whole at once.
 */
export class SegmentSnapshot {
  readonly #path: string;
  readonly #range: IdRange;
  readonly #bytes: Buffer;
  readonly #current: () => boolean;
  readonly #header: SegmentHeader | undefined;
  // Byte offsets where the record lines start, and one past the end of the last.
  readonly #starts: readonly number[] = [];
  readonly #eager: Map<string, Entry> | undefined;
  // Read on a known layout: where its blocks come from, and which were read and checked.
  #file: OpenSegmentFile | undefined;
  readonly #blocksRead: Uint8Array | undefined;
  /** Whether the file is in the older single-JSON format (rewrite it in the line format). */
  readonly legacy: boolean = false;
  /** Whether the file carries a checksum (it was checked): not so in the older formats. */
  readonly sealed: boolean = false;
  /** What reading the sealed file whole found: pass it as `known` to read the file again. */
  readonly layout: FileLayout | undefined;

  /**
   * @param bytes the file's content, `null` for a missing file (an empty segment)
   * @param current whether `bytes` still hold the file: a reader that lends a buffer it
   *   reuses says so, and lines are then read only while it does (else a bug: it throws)
   * @param known what an earlier snapshot of the file had as `layout`, for a file that still
   *   opens with its first line (`onLayout`), and the file open to read its blocks into
   *   `bytes`, which are then as long as the file and hold only what was read (see `need`)
   * @throws {SnapshotCorruptError} naming the file when it fails its checksum, is cut
   *   short, or is not a segment file
   */
  constructor(
    path: string,
    range: IdRange,
    bytes: Uint8Array | null,
    current: () => boolean = () => true,
    known?: { layout: FileLayout; file: OpenSegmentFile },
  ) {
    this.#path = path;
    this.#range = range;
    this.#current = current;
    if (known && bytes) {
      this.#bytes = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      this.#header = known.layout.header;
      this.#starts = known.layout.starts;
      this.#file = known.file;
      this.#blocksRead = new Uint8Array(known.layout.blocks.length);
      this.sealed = true;
      this.layout = known.layout;
      return;
    }
    if (bytes === null) {
      this.#bytes = Buffer.alloc(0);
      this.#eager = new Map();
      return;
    }
    const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.#bytes = buffer;
    const seal = checkSeal(buffer, FORMAT);
    if (typeof seal === "object") throw new SnapshotCorruptError(path, seal.mismatch);
    const end = buffer.indexOf(0x0a);
    if (seal === "absent" && (!startsWith(buffer, `{"format":"${UNSEALED}"`) || end < 0)) {
      this.#eager = entriesOf(parse(buffer.toString("utf8"), path), path, range);
      this.legacy = true;
      return;
    }
    const header = parse(buffer.toString("utf8", 0, end), path) as Partial<SegmentHeader> | null;
    if (typeof header?.count !== "number" || typeof header.order !== "object" || !header.order) {
      throw new SnapshotCorruptError(path, "it is not a segment file");
    }
    // Newlines are found in the bytes: in UTF-8 no byte of another character is 0x0a.
    const starts: number[] = [];
    let at = end + 1;
    while (at < buffer.length) {
      starts.push(at);
      const next = buffer.indexOf(0x0a, at);
      if (next < 0) break;
      at = next + 1;
    }
    starts.push(buffer.length);
    this.#starts = starts;
    if (starts.length - 1 !== header.count || buffer[buffer.length - 1] !== 0x0a) {
      const lines = `${starts.length - 1} of ${header.count} lines`;
      throw new SnapshotCorruptError(path, `it is cut short: ${lines}`);
    }
    for (const values of Object.values(header.order)) {
      if (!Array.isArray(values) || values.length !== header.count) {
        throw new SnapshotCorruptError(path, "its order index is malformed");
      }
    }
    this.#header = header as SegmentHeader;
    this.sealed = seal === "intact";
    if (this.sealed) {
      // A copy: `buffer` may be a reader's, reused by its next read.
      const firstLine = Buffer.from(buffer.subarray(0, end + 1));
      const blocks: number[] = [];
      for (let first = 0; first < header.count; first += BLOCK_LINES) {
        blocks.push(crc32(buffer.subarray(starts[first], blockEnd(starts, first))));
      }
      this.layout = { size: buffer.length, firstLine, header: this.#header, starts, blocks };
    }
  }

  /**
   * Whether a file opening with `firstLine` now is the file `layout` was found in: every
   * rewrite of a segment file changes its first line, which holds the checksum of the rest.
   * A snapshot made on that layout then reads only the blocks of the lines asked for, each
   * checked against the CRC that the whole file's check vouched for: a page answers only
   * bytes checked on its own read, and reads and checks nothing else.
   */
  static onLayout(firstLine: Uint8Array, layout: FileLayout): boolean {
    return Buffer.from(firstLine.buffer, firstLine.byteOffset, firstLine.byteLength).equals(
      layout.firstLine,
    );
  }

  /**
   * Makes sure record lines `[from, to)` can be read: on a known layout, reads the blocks
   * holding them that were not read yet, one read per run of such blocks, and checks each.
   * Reading a line reads its block anyway; this joins the reads of many lines into one.
   * @throws {SnapshotCorruptError} when a block does not match its CRC or is cut short
   */
  need(from: number, to: number): void {
    const read = this.#blocksRead;
    const blocks = this.layout?.blocks;
    if (!read || !blocks) return;
    const file = this.#file;
    if (!file || !this.#current()) {
      throw new Error(`${this.#path}: its snapshot was closed or its bytes reused`);
    }
    const starts = this.#starts;
    const last = Math.ceil(Math.min(to, starts.length - 1) / BLOCK_LINES);
    for (let block = Math.floor(Math.max(from, 0) / BLOCK_LINES); block < last; ) {
      if (read[block]) {
        block++;
        continue;
      }
      let end = block + 1;
      while (end < last && !read[end]) end++;
      const start = starts[block * BLOCK_LINES] as number;
      const stop = blockEnd(starts, (end - 1) * BLOCK_LINES);
      if (file.read(start, stop) < stop - start) {
        throw new SnapshotCorruptError(this.#path, "it is cut short");
      }
      for (; block < end; block++) {
        const first = block * BLOCK_LINES;
        const bytes = this.#bytes.subarray(starts[first], blockEnd(starts, first));
        if (crc32(bytes) !== blocks[block]) {
          const lines = `lines ${first + 2} to ${Math.min(first + BLOCK_LINES, starts.length - 1) + 1}`;
          const mismatch = `its checksum does not match its content (${lines}): a byte changed`;
          throw new SnapshotCorruptError(this.#path, mismatch);
        }
        read[block] = 1;
      }
    }
  }

  /** Closes the file a snapshot on a known layout reads from: no block is read after. */
  close(): void {
    this.#file?.close();
    this.#file = undefined;
  }

  /** The fields the header's order index covers (none in the older single-JSON format). */
  get indexedFields(): string[] {
    return Object.keys(this.#header?.order ?? {});
  }

  /** Every entry in its range, parsed. */
  entries(): Map<string, Entry> {
    if (this.#eager) return this.#eager;
    this.need(0, this.#starts.length - 1);
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

  /**
   * The entry on record line `line` (from `candidates`) with its record's JSON text as the
   * line holds it, or `undefined` if outside the range.
   */
  lineAt(line: number): { entry: Entry; json: string | undefined } | undefined {
    const text = this.#textAt(line);
    const entry = this.#entryOf(text, line);
    const parts = entry && recordParts(text);
    return entry && { entry, json: parts?.etag === entry.etag ? parts.json : undefined };
  }

  /**
   * The record on record line `line` (from `candidates`) as its JSON text, its id and its
   * etag, read from the line without parsing it, or `undefined` if outside the range; `null`
   * when the line is not laid out as `encodeSegment` writes it with an id first (then use
   * `lineAt`). Its bytes were checked (the whole file, or the line's block), so the text is
   * the record `encodeSegment` wrote.
   */
  textAt(line: number): { json: string; id: string; etag: string } | undefined | null {
    const parts = recordParts(this.#textAt(line));
    const id = parts ? leadingId(parts.json) : undefined;
    if (!parts || id === undefined) return null;
    return inRange(id, this.#range) ? { json: parts.json, id, etag: parts.etag } : undefined;
  }

  #entryAt(line: number): Entry | undefined {
    return this.#entryOf(this.#textAt(line), line);
  }

  #textAt(line: number): string {
    if (!this.#current()) throw new Error(`${this.#path}: its snapshot's bytes were reused`);
    if (this.#blocksRead?.[Math.floor(line / BLOCK_LINES)] === 0) this.need(line, line + 1);
    const start = this.#starts[line] as number;
    return this.#bytes.toString("utf8", start, (this.#starts[line + 1] as number) - 1);
  }

  #entryOf(text: string, line: number): Entry | undefined {
    const entry = parse(text, this.#path, line + 2) as Partial<Entry> | null;
    const id = entry?.record?.id;
    if (typeof entry?.etag !== "string" || typeof id !== "string") {
      throw new SnapshotCorruptError(this.#path, `line ${line + 2} holds no entry`);
    }
    return inRange(id, this.#range) ? (entry as Entry) : undefined;
  }
}

/** Where the block of record lines from `first` ends: one past its last line's newline. */
function blockEnd(starts: readonly number[], first: number): number {
  return starts[Math.min(first + BLOCK_LINES, starts.length - 1)] as number;
}

/**
 * Parses a record's text that `SegmentSnapshot.textAt` gave (a page hands it out unparsed).
 * @throws {SnapshotCorruptError} when it is not JSON: not as `encodeSegment` wrote it, though
 *   its bytes matched their checksum
 */
export function parseRecordJson(json: string): StoreRecord {
  return parse(json, "a segment file read by a page", 0) as StoreRecord;
}

const RECORD_OPENING = '{"record":';
const ETAG_OPENING = ',"etag":"';

/**
 * A record line cut into the record's text and its etag without parsing it, `null` unless
 * the line is laid out as `encodeSegment` writes it, `JSON.stringify({ record, etag })`,
 * with an etag holding no escape (etags are plain text). Then `json` is what
 * `JSON.stringify(record)` writes, since parsing and writing again gives back the same text
 * (keys in the same order, numbers and escapes written the one way `JSON.stringify` writes
 * them), and the etag is the last field's: its text holds no quote.
 */
function recordParts(text: string): { json: string; etag: string } | null {
  const etagStart = text.lastIndexOf(ETAG_OPENING);
  if (!text.startsWith(RECORD_OPENING) || !text.endsWith('"}') || etagStart < 0) return null;
  const etag = text.slice(etagStart + ETAG_OPENING.length, text.length - 2);
  if (etag.includes("\\") || etag.includes('"')) return null;
  return { json: text.slice(RECORD_OPENING.length, etagStart), etag };
}

function parse(text: string, path: string, line?: number): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    const where = line === undefined ? "it" : `line ${line}`;
    throw new SnapshotCorruptError(path, `${where} is not JSON`, cause);
  }
}

function startsWith(bytes: Buffer, opening: string): boolean {
  return bytes.toString("latin1", 0, opening.length) === opening;
}

function inRange(id: string, range: IdRange): boolean {
  return id >= range.low && (range.high === undefined || id < range.high);
}

/** The entries of a file in the older format, `{"records":{id:entry}}`. */
function entriesOf(data: unknown, path: string, range: IdRange): Map<string, Entry> {
  const records = (data as { records?: unknown } | null)?.records;
  // Nothing but `records`: a file of a newer format whose opening was damaged is no
  // older file, even where it still parses.
  const only = typeof data === "object" && data !== null && Object.keys(data).length === 1;
  if (!only || typeof records !== "object" || records === null || Array.isArray(records)) {
    throw new SnapshotCorruptError(path, "it is not a segment file");
  }
  const entries = new Map<string, Entry>();
  for (const [id, entry] of Object.entries(records as Record<string, Partial<Entry>>)) {
    if (typeof entry?.etag !== "string" || entry.record?.id !== id) {
      throw new SnapshotCorruptError(path, `its entry for id ${JSON.stringify(id)} is malformed`);
    }
    if (inRange(id, range)) entries.set(id, entry as Entry);
  }
  return entries;
}
