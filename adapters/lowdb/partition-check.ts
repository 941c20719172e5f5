import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { compareValues, isNotFound } from "formwork/ports/kit";
import { lowdbError, SnapshotCorruptError } from "./errors.ts";
import { FIRST_SEGMENT_FILE, isSegmentFile, MANIFEST_FILE } from "./file-names.ts";
import { decodeManifest, type ManifestEntry } from "./manifest.ts";
import { boundValue, type Entry, type IdRange, SegmentSnapshot } from "./snapshot-format.ts";

/** One segment file as a check read it. */
export interface SegmentCheck {
  file: string;
  path: string;
  /** What is wrong with it; absent when it reads whole. */
  fault?: string;
  /** Its entries in its range, when it reads whole. */
  entries?: Map<string, Entry>;
  /** The fields its header indexes (for bounds), when it reads whole. */
  indexed?: string[];
  /** Whether it carries a checksum (the older formats do not). */
  sealed: boolean;
  /** The ids of the lines that still parse, when it does not read whole. */
  salvagedIds?: string[];
}

/** One partition's folder as a check read it. */
export interface PartitionCheck {
  folder: string;
  manifestPath: string;
  /** What is wrong with the manifest; absent when it reads (or there is none). */
  manifestFault?: string;
  /** Whether there is a manifest file, and whether it carries a checksum. */
  manifest: "none" | "sealed" | "older";
  /** The manifest's entries as read (`0.json` alone without one; none when it is damaged). */
  listed: ManifestEntry[];
  /** The segments the manifest lists (every segment file, when the manifest is damaged). */
  segments: SegmentCheck[];
  /** Problems of a readable manifest against its files (bounds that claim too little). */
  mismatches: { file: string; problem: string }[];
  /** Segment files in the folder that the manifest does not list (left by a crash). */
  unlisted: string[];
}

/**
 * Reads a partition's manifest and every segment file it lists, checking each one's
 * checksum and parsing every line (what a store start does lazily), and checks that the
 * manifest's bounds cover the values each file holds. Changes nothing.
 */
export async function checkPartition(folder: string): Promise<PartitionCheck> {
  const manifestPath = join(folder, MANIFEST_FILE);
  const files = (await readdir(folder)).filter(isSegmentFile).sort();
  let listed: ManifestEntry[] = [{ low: "", file: FIRST_SEGMENT_FILE }];
  let manifestFault: string | undefined;
  let manifest: PartitionCheck["manifest"] = "none";
  const bytes = await readOptional(manifestPath);
  if (bytes !== null) {
    const text = bytes.toString("utf8");
    manifest = text.startsWith('{"format":') ? "sealed" : "older";
    try {
      listed = decodeManifest(manifestPath, text).segments;
    } catch (error) {
      if (!(error instanceof SnapshotCorruptError)) throw error;
      manifestFault = error.reason;
      listed = files.map((file) => ({ low: "", file }));
    }
  }
  const segments: SegmentCheck[] = [];
  const mismatches: PartitionCheck["mismatches"] = [];
  for (const [index, entry] of listed.entries()) {
    const range: IdRange = manifestFault
      ? { low: "" }
      : { low: entry.low, high: listed[index + 1]?.low };
    const segment = await checkSegment(join(folder, entry.file), entry.file, range);
    segments.push(segment);
    if (segment.entries && !manifestFault) mismatches.push(...boundsMismatches(entry, segment));
  }
  const names = new Set(listed.map((entry) => entry.file));
  const unlisted = files.filter((file) => !names.has(file));
  const kept = manifestFault ? [] : listed;
  return {
    folder,
    manifestPath,
    manifestFault,
    manifest,
    listed: kept,
    segments,
    mismatches,
    unlisted,
  };
}

/** Reads one segment file whole: its checksum, its header, every line. */
export async function checkSegment(path: string, file: string, range: IdRange) {
  const bytes = await readOptional(path);
  const check: SegmentCheck = { file, path, sealed: false };
  try {
    const snapshot = new SegmentSnapshot(path, range, bytes);
    check.entries = snapshot.entries();
    check.indexed = snapshot.indexedFields;
    check.sealed = snapshot.sealed || bytes === null;
  } catch (error) {
    if (!(error instanceof SnapshotCorruptError)) throw error;
    check.fault = error.reason;
    check.salvagedIds = idsIn(bytes?.toString("utf8") ?? "");
  }
  return check;
}

/** The bounds the manifest keeps for `entry` that leave out a value its file holds. */
function boundsMismatches(entry: ManifestEntry, segment: SegmentCheck) {
  const mismatches: PartitionCheck["mismatches"] = [];
  for (const [field, bounds] of Object.entries(entry.bounds ?? {})) {
    for (const { record } of segment.entries?.values() ?? []) {
      const value = boundValue(record, field);
      const outside =
        bounds === null ||
        compareValues(value, bounds[0]) < 0 ||
        compareValues(value, bounds[1]) > 0;
      if (!outside) continue;
      const problem = `the manifest's bounds of ${field} (${JSON.stringify(bounds)}) leave out ${JSON.stringify(value)} of record ${record.id}: pages may miss it`;
      mismatches.push({ file: segment.file, problem });
      break;
    }
  }
  return mismatches;
}

/** The record ids of the lines of a damaged segment file that still parse. */
function idsIn(text: string): string[] {
  const ids: string[] = [];
  for (const line of text.split("\n").slice(1)) {
    try {
      const id = (JSON.parse(line) as { record?: { id?: unknown } }).record?.id;
      if (typeof id === "string") ids.push(id);
    } catch {
      // Cut off or damaged: its id is not known.
    }
  }
  return ids;
}

/** A file's bytes, `null` when it is missing. */
export async function readOptional(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (cause) {
    if (isNotFound(cause)) return null;
    throw lowdbError(`cannot read ${path}`, cause);
  }
}
