import { Buffer } from "node:buffer";
import { join } from "node:path";
import { Low } from "lowdb";
import { DataFile } from "lowdb/node";
import { checkSeal, sealText } from "./checksums.ts";
import { lowdbError, SnapshotCorruptError } from "./errors.ts";
import { FIRST_SEGMENT_FILE, isSegmentFile, MANIFEST_FILE } from "./file-names.ts";
import type { Bounds, IdRange } from "./segments.ts";

/**
 * One segment as the manifest lists it: the lowest id it owns, its file name, and for the
 * store's order fields the bounds of their values in that file (absent: unknown).
 */
export interface ManifestEntry {
  low: string;
  file: string;
  bounds?: Record<string, Bounds | null>;
}

/** The JSON of a manifest file. */
export interface ManifestData {
  segments: ManifestEntry[];
}

// Manifests open with their format and a checksum of the rest (`checksums.ts`); those
// written before, `{"segments":[…]}` alone, are still read and get one when next written.
const FORMAT = "formwork-manifest/2";

/** A manifest file's text: compact JSON, its format and checksum first. */
export function encodeManifest(data: ManifestData): string {
  return sealText(FORMAT, `,${JSON.stringify({ segments: data.segments }).slice(1)}`);
}

/**
 * The manifest in a file's text, its checksum checked (an older file has none).
 * @throws {SnapshotCorruptError} naming the file when it is damaged or no valid manifest
 */
export function decodeManifest(path: string, text: string): ManifestData {
  const seal = checkSeal(Buffer.from(text, "utf8"), FORMAT);
  if (typeof seal === "object") throw new SnapshotCorruptError(path, seal.mismatch);
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (cause) {
    throw new SnapshotCorruptError(path, "it is not JSON", cause);
  }
  // An older manifest holds `segments` alone: one with a damaged opening is not taken for it.
  const older = typeof data === "object" && data !== null && Object.keys(data).length === 1;
  if ((seal === "absent" && !older) || !isValid(data)) {
    throw new SnapshotCorruptError(path, "it is not a valid manifest");
  }
  return { segments: data.segments };
}

/**
 * The sorted list of a partition's segments. Segment `i` owns the ids from its `low` up to
 * the next segment's `low`; the first one's `low` is always `""`, so every id has an owner.
 */
export class Manifest {
  readonly #db: Low<ManifestData>;
  readonly #path: string;
  #dirty = false;

  private constructor(path: string, db: Low<ManifestData>) {
    this.#path = path;
    this.#db = db;
  }

  /**
   * Reads a partition's manifest; without one, the partition is its first segment alone.
   * @throws {SnapshotCorruptError} naming the file when it is damaged
   */
  static async load(folder: string): Promise<Manifest> {
    const path = join(folder, MANIFEST_FILE);
    // Compact JSON: with bounds, a manifest of a large partition is rewritten often enough.
    const file = new DataFile<ManifestData>(path, {
      parse: (text) => decodeManifest(path, text),
      stringify: encodeManifest,
    });
    const db = new Low<ManifestData>(file, {
      segments: [{ low: "", file: FIRST_SEGMENT_FILE }],
    });
    try {
      await db.read();
    } catch (cause) {
      if (cause instanceof SnapshotCorruptError) throw cause;
      throw lowdbError(`cannot read ${path}`, cause);
    }
    return new Manifest(path, db);
  }

  /** The segments, sorted by `low`. */
  get entries(): readonly ManifestEntry[] {
    return this.#db.data.segments;
  }

  /** The index of the segment that owns `id`: the last one whose `low` is not above it. */
  indexOf(id: string): number {
    const segments = this.entries;
    let lo = 0;
    let hi = segments.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((segments[mid] as ManifestEntry).low <= id) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** The ids the segment at `index` owns. */
  rangeOf(index: number): IdRange {
    const low = (this.entries[index] as ManifestEntry).low;
    return { low, high: this.entries[index + 1]?.low };
  }

  /** Whether it changed since it was read or last written. */
  get dirty(): boolean {
    return this.#dirty;
  }

  /** Lists segments split off the one at `index - 1`, in id order. */
  insert(index: number, entries: ManifestEntry[]): void {
    this.#db.data.segments.splice(index, 0, ...entries);
    this.#dirty = true;
  }

  /**
   * Unlists an empty segment. The next segment takes over its ids, by lowering its `low`:
   * ids above a segment's range may linger in its file after a crashed split, but never ids
   * below it, so widening downwards cannot bring a stale record back.
   */
  remove(index: number): void {
    const segments = this.#db.data.segments;
    const [removed] = segments.splice(index, 1);
    const next = segments[index];
    if (removed && next) next.low = index === 0 ? "" : removed.low;
    this.#dirty = true;
  }

  /**
   * Records the bounds of `field` in the segment file at `index` (`undefined`, kept as
   * `null`: the file is empty).
   * Set only once that file is written, so that they never claim less than it holds.
   * @returns whether anything changed
   */
  setBounds(index: number, field: string, bounds: Bounds | undefined): boolean {
    const entry = this.entries[index] as ManifestEntry;
    const next = bounds ?? null;
    const kept = entry.bounds?.[field];
    if (kept !== undefined && JSON.stringify(kept) === JSON.stringify(next)) return false;
    entry.bounds = { ...entry.bounds, [field]: next };
    this.#dirty = true;
    return true;
  }

  /** Only compaction writes the manifest, on the partition's chain, waiting for the write. */
  async write(): Promise<string> {
    try {
      await this.#db.write();
    } catch (cause) {
      throw lowdbError(`cannot write ${this.#path}`, cause);
    }
    this.#dirty = false;
    return this.#path;
  }
}

/** Whether `data` is a manifest: segments with ascending `low`s, the first one `""`. */
export function isValid(data: unknown): data is ManifestData {
  const segments = (data as Partial<ManifestData> | null)?.segments;
  if (!Array.isArray(segments) || segments.length === 0) return false;
  return segments.every(
    (entry: Partial<ManifestEntry>, i) =>
      typeof entry?.low === "string" &&
      typeof entry.file === "string" &&
      isSegmentFile(entry.file) &&
      (entry.bounds === undefined || (typeof entry.bounds === "object" && entry.bounds !== null)) &&
      (i === 0 ? entry.low === "" : entry.low > (segments[i - 1] as ManifestEntry).low),
  );
}
