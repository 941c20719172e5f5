import { Buffer } from "node:buffer";
import { crc32 } from "node:zlib";
import type { StoreRecord } from "formwork/ports";

/** One change of one record as the journal keeps it: its new state, or its deletion. */
export type RecordChange =
  | { c: string; p: string; o: "put"; r: StoreRecord; e: string }
  | { c: string; p: string; o: "del"; i: string };

/**
 * One journal line: a record's change, a cleared partition, or a batch of record changes
 * (`Store.batch`) that is written, checked and replayed as one, so a torn batch is dropped
 * whole.
 */
export type JournalEntry =
  | RecordChange
  | { c: string; p: string; o: "clear" }
  | { o: "batch"; b: RecordChange[] };

/**
 * One line of the journal: the CRC-32 of the JSON's UTF-8 bytes in 8 hex digits, a space,
 * the JSON, a newline. JSON escapes every newline inside strings, so a line is one entry.
 */
export function encodeEntry(entry: JournalEntry): Buffer {
  // Encoded once, straight into the line after room for the CRC and a space (no string
  // concatenated first); the CRC of the JSON's bytes then goes in front (hot path).
  const json = JSON.stringify(entry);
  const end = 9 + Buffer.byteLength(json, "utf8");
  const line = Buffer.allocUnsafe(end + 1);
  line.write(json, 9, "utf8");
  line[8] = 0x20;
  line[end] = 0x0a;
  line.write(crc32(line.subarray(9, end)).toString(16).padStart(8, "0"), 0, "latin1");
  return line;
}

/** What {@link decodeEntries} read from a journal file. */
export interface DecodedJournal {
  entries: JournalEntry[];
  /** How many leading bytes hold whole, intact entries. */
  validBytes: number;
  /**
   * Where the first intact entry after the bad one at `validBytes` starts, if any: then the
   * file is corrupt in the middle, not torn at its end.
   */
  resumesAt: number | undefined;
}

/**
 * Reads a journal file's entries up to the first one that is cut off, fails its checksum or
 * does not parse; nothing after that point is trusted. It then looks for an intact entry
 * further on: JSON escapes every newline, so entries can only start right after a newline,
 * and each line after the bad one is tried in turn (a changed byte may merge two lines or
 * split one, so the bad entry's own line ending is not trusted either).
 */
export function decodeEntries(bytes: Uint8Array): DecodedJournal {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const entries: JournalEntry[] = [];
  let offset = 0;
  for (let read = readEntry(buffer, offset); read; read = readEntry(buffer, offset)) {
    entries.push(read.entry);
    offset = read.next;
  }
  let resumesAt: number | undefined;
  for (let end = buffer.indexOf(0x0a, offset); end >= 0; end = buffer.indexOf(0x0a, end + 1)) {
    if (readEntry(buffer, end + 1)) {
      resumesAt = end + 1;
      break;
    }
  }
  return { entries, validBytes: offset, resumesAt };
}

/**
 * Every intact entry on a line from `from` on (each line start is tried): what cutting a
 * journal file at `from` drops.
 */
export function entriesFrom(bytes: Uint8Array, from: number): JournalEntry[] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const found: JournalEntry[] = [];
  for (let at = from; at < buffer.length; ) {
    const read = readEntry(buffer, at);
    if (read) {
      found.push(read.entry);
      at = read.next;
      continue;
    }
    const end = buffer.indexOf(0x0a, at);
    if (end < 0) break;
    at = end + 1;
  }
  return found;
}

/** The intact entry starting at `offset` and where the next one starts, if there is one. */
function readEntry(buffer: Buffer, offset: number) {
  const end = buffer.indexOf(0x0a, offset);
  if (end < 0 || end - offset < 10 || buffer[offset + 8] !== 0x20) return undefined;
  const json = buffer.subarray(offset + 9, end);
  const sum = Number.parseInt(buffer.toString("latin1", offset, offset + 8), 16);
  if (sum !== crc32(json)) return undefined;
  const entry = parseEntry(json);
  return entry ? { entry, next: end + 1 } : undefined;
}

function parseEntry(json: Buffer): JournalEntry | undefined {
  let entry: unknown;
  try {
    entry = JSON.parse(json.toString("utf8"));
  } catch {
    return undefined;
  }
  const batch = (entry as { o?: unknown; b?: unknown } | null)?.b;
  if ((entry as { o?: unknown } | null)?.o === "batch" && Array.isArray(batch)) {
    const changes = batch.map(checkEntry);
    return changes.every((change) => change?.o === "put" || change?.o === "del")
      ? { o: "batch", b: changes as RecordChange[] }
      : undefined;
  }
  return checkEntry(entry);
}

function checkEntry(value: unknown): JournalEntry | undefined {
  const entry = value as Partial<{
    c: unknown;
    p: unknown;
    o: unknown;
    r: unknown;
    e: unknown;
    i: unknown;
  }> | null;
  if (typeof entry?.c !== "string" || typeof entry.p !== "string") return undefined;
  if (entry.o === "clear") return entry as JournalEntry;
  if (entry.o === "del" && typeof entry.i === "string") return entry as JournalEntry;
  const record = entry.r as Partial<StoreRecord> | undefined;
  if (entry.o === "put" && typeof entry.e === "string" && typeof record?.id === "string") {
    return entry as JournalEntry;
  }
  return undefined;
}
