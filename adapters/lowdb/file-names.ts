import { createHash, randomUUID } from "node:crypto";
import { basename, dirname, join } from "node:path";

/** The file naming the segments of a partition; absent until the first split. */
export const MANIFEST_FILE = "manifest.json";

/** The segment every partition starts with, so that a first write needs no manifest. */
export const FIRST_SEGMENT_FILE = "0.json";

// Longer encodings would approach the 255-byte limit of one path component.
const MAX_ENCODED_LENGTH = 120;
const KEPT = /^[a-z0-9_-]$/;
const WINDOWS_DEVICE = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/;

/**
 * Turns an arbitrary collection or partition name into one path component that cannot leave
 * its parent folder. Only `a-z 0-9 _ -` stay as they are; every other UTF-16 code unit becomes
 * `%XX` or `%uXXXX` with uppercase hex. Escaping uppercase letters keeps the encoding
 * one-to-one on case-insensitive file systems, and escaping `.` rules out `.` and `..`.
 * `~` never appears in an encoding, so it marks the two special forms: `~` alone for the
 * empty name, and `<prefix>~<hash>` for names too long to spell out.
 */
export function encodeName(name: string): string {
  if (name === "") return "~";
  let encoded = "";
  for (const char of name) encoded += encodeChar(char);
  if (WINDOWS_DEVICE.test(encoded)) encoded = encoded.slice(0, -1) + escapeUnit(encoded.slice(-1));
  if (encoded.length <= MAX_ENCODED_LENGTH) return encoded;
  // Hashing the encoding, not the name: the encoding is plain ASCII, so lone surrogates in
  // two different names cannot collapse into the same UTF-8 bytes.
  const hash = createHash("sha256").update(encoded).digest("hex").slice(0, 32);
  return `${encoded.slice(0, 80)}~${hash}`;
}

function encodeChar(char: string): string {
  if (KEPT.test(char)) return char;
  let out = "";
  for (let i = 0; i < char.length; i++) out += escapeUnit(char.charAt(i));
  return out;
}

function escapeUnit(unit: string): string {
  const code = unit.charCodeAt(0);
  const hex = code.toString(16).toUpperCase();
  return code < 0x100 ? `%${hex.padStart(2, "0")}` : `%u${hex.padStart(4, "0")}`;
}

/**
 * The name `encodeName` turned into `encoded`, or `undefined` for a name too long to spell
 * out (`<prefix>~<hash>`), which only the partition's name file ({@link NAME_FILE}) tells,
 * or for a folder name no encoding gives.
 */
export function decodeName(encoded: string): string | undefined {
  if (encoded === "~") return "";
  if (encoded.includes("~")) return undefined;
  const name = decodedPrefix(encoded);
  return encodeName(name) === encoded ? name : undefined;
}

/**
 * What the escapes of `encoded` spell, up to the last whole one: the start of the name,
 * also for a shortened encoding's prefix.
 */
export function decodedPrefix(encoded: string): string {
  let name = "";
  for (const [, kept, byte, unit] of encoded.matchAll(
    /([a-z0-9_-])|%([0-9A-F]{2})|%u([0-9A-F]{4})/gy,
  )) {
    name += kept ?? String.fromCharCode(Number.parseInt((byte ?? unit) as string, 16));
  }
  return name;
}

/**
 * The file, in a partition's folder whose name or collection's name is too long to spell
 * out, that names both: `{"collection":…,"partition":…}` (a full scan needs them).
 */
export const NAME_FILE = "name.json";

/** Whether `encodeName` shortened a name to `<prefix>~<hash>`. */
export function isShortened(encoded: string): boolean {
  return encoded !== "~" && encoded.includes("~");
}

/** The folder holding one partition: `<directory>/<collection>/<partition>`, both encoded. */
export function partitionFolder(directory: string, collection: string, partition: string): string {
  return join(directory, encodeName(collection), encodeName(partition));
}

/** A fresh file name for a segment split off another one. */
export function newSegmentFile(): string {
  return `${randomUUID()}.json`;
}

/** Whether a manifest names a segment file this adapter could have written. */
export function isSegmentFile(file: string): boolean {
  return /^[0-9a-f-]{1,36}\.json$/.test(file);
}

/**
 * Where a partition's folder is moved before it is deleted. Renaming is atomic, so a crash
 * in the middle of the recursive delete leaves a hidden folder behind rather than a
 * half-deleted partition; encoded names never start with `.`, so no partition can be hit.
 */
export function tombstoneFor(folder: string): string {
  return join(dirname(folder), `.${basename(folder)}.deleted-${randomUUID()}`);
}
