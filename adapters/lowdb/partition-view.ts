import { join } from "node:path";
import type { FileLayouts } from "./file-layouts.ts";
import { Manifest, type ManifestEntry } from "./manifest.ts";
import type { Partition } from "./partition.ts";
import type { SegmentCache } from "./segment-cache.ts";
import { type Entry, readSnapshot, Segment } from "./segments.ts";
import type { SegmentSnapshot } from "./snapshot-format.ts";

/**
 * What of one partition is in memory: its manifest and the segments loaded so far, each
 * read from disk on first use. Every segment loaded or used is reported to the store's
 * cache, which may later `unload` it again.
 */
export class PartitionView {
  readonly #folder: string;
  readonly #cache: SegmentCache<Partition>;
  readonly #fileLayouts: FileLayouts;
  readonly #owner: Partition;
  readonly #orderFields: readonly string[];
  readonly #loaded = new Map<string, Segment>();
  #manifest: Manifest | undefined;
  #epoch = 0;

  /**
   * @param held the store's bounds: on loaded segments, and on what reading segment files
   *   whole found, which pages reuse (`snapshotAt`)
   * @param orderFields the fields segment files index, for `readPage`
   */
  constructor(
    folder: string,
    held: { segments: SegmentCache<Partition>; fileLayouts: FileLayouts },
    owner: Partition,
    orderFields: readonly string[],
  ) {
    this.#folder = folder;
    this.#orderFields = orderFields;
    this.#cache = held.segments;
    this.#fileLayouts = held.fileLayouts;
    this.#owner = owner;
  }

  /** Bumped by every `reset`: work planned before one must not go on after it. */
  get epoch(): number {
    return this.#epoch;
  }

  get loadedCount(): number {
    return this.#loaded.size;
  }

  async manifest(): Promise<Manifest> {
    this.#manifest ??= await Manifest.load(this.#folder);
    return this.#manifest;
  }

  /**
   * The segment owning `id` when it and the manifest are loaded, without waiting a turn
   * (the request path's reads and batches); `undefined` when either must be read.
   */
  loadedSegmentFor(id: string): Segment | undefined {
    const manifest = this.#manifest;
    if (!manifest) return undefined;
    const segment = this.loadedAt(manifest, manifest.indexOf(id));
    if (segment) this.remember(segment);
    return segment;
  }

  /** The segment owning `id`. */
  async segmentFor(id: string): Promise<Segment> {
    const manifest = await this.manifest();
    return this.segmentAt(manifest, manifest.indexOf(id));
  }

  /** Every segment, loaded one after the other to keep few files open. */
  async allSegments(): Promise<Segment[]> {
    const manifest = await this.manifest();
    const segments: Segment[] = [];
    for (let i = 0; i < manifest.entries.length; i++) {
      segments.push(await this.segmentAt(manifest, i));
    }
    return segments;
  }

  /** Whether a loaded segment, or the manifest, holds changes its file does not. */
  get dirty(): boolean {
    if (this.#manifest?.dirty) return true;
    for (const segment of this.#loaded.values()) if (segment.dirty) return true;
    return false;
  }

  /** The segment at `index` of the manifest, if it is loaded (keyed by file name: no path join). */
  loadedAt(manifest: Manifest, index: number): Segment | undefined {
    return this.#loaded.get((manifest.entries[index] as ManifestEntry).file);
  }

  /** Keeps a segment created by a split. */
  remember(segment: Segment): void {
    this.#loaded.set(segment.file, segment);
    this.#cache.touch(segment, this.#owner);
  }

  unload(segment: Segment): void {
    this.#loaded.delete(segment.file);
  }

  /** Forgets a segment for good, from this view and from the cache. */
  discard(segment: Segment): void {
    this.unload(segment);
    this.#cache.remove(segment);
  }

  /** Forgets everything, so that the next use reads the files again. */
  reset(): void {
    for (const segment of this.#loaded.values()) this.#cache.remove(segment);
    this.#loaded.clear();
    this.#manifest = undefined;
    this.#epoch++;
  }

  /** The segment at `index` of the manifest, read from its file unless loaded. */
  async segmentAt(manifest: Manifest, index: number): Promise<Segment> {
    const file = (manifest.entries[index] as ManifestEntry).file;
    const segment =
      this.#loaded.get(file) ??
      (await Segment.load(join(this.#folder, file), manifest.rangeOf(index), this.#orderFields));
    this.remember(segment);
    return segment;
  }

  /**
   * The file of the segment at `index`, read but neither loaded nor cached: a page reads a
   * segment that is not loaded this way, parsing only the lines it needs. Only for a segment
   * that is not loaded (a loaded one may hold changes its file does not). Read whole and
   * checked once, then only in the blocks a page needs, each checked, while the file stays
   * unchanged (`FileLayouts`). Use it at once, before anything awaited, and close it (see
   * `readSnapshot`).
   */
  snapshotAt(manifest: Manifest, index: number): SegmentSnapshot {
    const file = (manifest.entries[index] as ManifestEntry).file;
    const path = join(this.#folder, file);
    return readSnapshot(path, manifest.rangeOf(index), this.#fileLayouts);
  }

  /**
   * Loads the segment at `index` from a snapshot of its file in the older single-JSON
   * format and rewrites the file in the line format (temp file and rename; the records are
   * those of the file, so nothing changes but the layout). A failed rewrite leaves the old
   * file, which reads as before.
   */
  async upgrade(manifest: Manifest, index: number, snapshot: SegmentSnapshot): Promise<Segment> {
    const file = (manifest.entries[index] as ManifestEntry).file;
    const segment = Segment.fromFile(join(this.#folder, file), snapshot, this.#orderFields);
    this.remember(segment);
    await segment.write().catch(() => undefined);
    return segment;
  }

  /** Creates a segment split off another, without a file yet, indexing the order fields. */
  createSegment(file: string, records: Map<string, Entry>): Segment {
    return Segment.create(join(this.#folder, file), records, this.#orderFields);
  }
}
