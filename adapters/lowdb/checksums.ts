import { Buffer } from "node:buffer";
import { crc32 } from "node:zlib";

/**
 * Snapshot files (segments, manifests) open with their format and a checksum of everything
 * after it: `{"format":"<format>","crc":"<8 hex digits>"` then the rest of the JSON, whose
 * UTF-8 bytes the CRC-32 covers to the file's last byte. The opening has a fixed length, so
 * a changed byte anywhere fails the check: in the opening (the format no longer matches, or
 * the stored sum does not), or after it (the sum does not match).
 */

/** The opening of a file of `format`, up to its checksum's digits. */
function opening(format: string): string {
  return `{"format":"${format}","crc":"`;
}

/**
 * A snapshot file's text: `format`, the checksum of `rest`, then `rest`.
 * @param rest the JSON object's other members, from the comma on: `,"count":…}\n…`
 */
export function sealText(format: string, rest: string): string {
  return `${opening(format)}${crc32(rest).toString(16).padStart(8, "0")}"${rest}`;
}

/**
 * The bytes of {@link sealText}`(format, lines joined by "\n" with a "\n" after the last)`,
 * built straight into one buffer: a segment is hundreds of kilobytes, and joining its lines
 * into one string first, then encoding that string to check it and again to write it, cost
 * several times what the lines' own encoding does (docs/design.md §18, "Snapshots").
 * @param lines the rest's lines, the first opening with the comma after the checksum
 */
export function sealLines(format: string, lines: readonly string[]): Buffer {
  const head = opening(format);
  const start = head.length + 9;
  let size = start;
  for (const line of lines) size += Buffer.byteLength(line) + 1;
  const bytes = Buffer.allocUnsafe(size);
  bytes.write(head, 0, "latin1");
  let at = start;
  for (const line of lines) {
    at += bytes.write(line, at, "utf8");
    bytes[at++] = 0x0a;
  }
  bytes.write(crc32(bytes.subarray(start)).toString(16).padStart(8, "0"), head.length, "latin1");
  bytes[start - 1] = 0x22;
  return bytes;
}

/** What {@link checkSeal} found at the start of a file. */
export type Seal =
  /** The file opens with `format` and its checksum matches. */
  | "intact"
  /** The file does not open with `format`: an older format, or damage (the caller decides). */
  | "absent"
  /** The file opens with `format`, but its bytes do not match the sum: damage. */
  | { mismatch: string };

/** Checks the checksum of a file that may be of `format` (see {@link sealText}). */
export function checkSeal(bytes: Uint8Array, format: string): Seal {
  const head = Buffer.from(opening(format), "latin1");
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buffer.length < head.length + 9 || !buffer.subarray(0, head.length).equals(head)) {
    return "absent";
  }
  const stored = buffer.toString("latin1", head.length, head.length + 8);
  const computed = crc32(buffer.subarray(head.length + 9))
    .toString(16)
    .padStart(8, "0");
  if (buffer[head.length + 8] === 0x22 && stored === computed) return "intact";
  return {
    mismatch: `its checksum does not match its content (stored ${JSON.stringify(stored)}, computed "${computed}"): a byte changed or the file is cut short`,
  };
}
