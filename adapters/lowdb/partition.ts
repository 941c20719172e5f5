import { join } from "node:path";
import { newSegmentFile } from "./file-names.ts";
import { createFolder, moveAway, removeFile, removeTree } from "./folders.ts";
import type { Manifest } from "./manifest.ts";
import { Mutex } from "./mutex.ts";
import { PartitionView } from "./partition-view.ts";
import { PendingWrites } from "./pending-writes.ts";
import type { SegmentCache, SegmentOwner } from "./segment-cache.ts";
import { Segment } from "./segments.ts";

/**
 * The records of one (collection, partition): a folder with segment files and, once a
 * segment has split, a manifest. Operations run one at a time on a promise chain, so an etag
 * check and the write it guards are atomic. A plain write leaves the chain as soon as its
 * change is in memory and its file write has started; the caller then awaits the write, so
 * overlapping writes of one file coalesce in steno. Restructuring touches several files in
 * a crash-safe order and keeps the chain until done:
 * - split: the new upper segment, then the manifest, then the trimmed lower segment. A crash
 *   before the manifest leaves an unlisted file; after it, the lower file still holds copies
 *   of the moved records, which `Segment.load` ignores as outside its range.
 * - an emptied segment (never the last one): the manifest, then the unlink.
 * When a write fails, the next operation waits for the writes in flight and drops what is
 * loaded, so memory never keeps a change the disk refused.
 */
export class Partition implements SegmentOwner {
  readonly folder: string;
  /** What is loaded; use it only inside `run`. */
  readonly view: PartitionView;
  readonly #segmentSize: number;
  readonly #mutex = new Mutex();
  readonly #writes = new PendingWrites();
  #folderReady = false;

  constructor(folder: string, segmentSize: number, cache: SegmentCache<Partition>) {
    this.folder = folder;
    this.#segmentSize = segmentSize;
    this.view = new PartitionView(folder, cache, this);
  }

  get idle(): boolean {
    return !this.#mutex.busy && this.#writes.size === 0;
  }

  get loadedCount(): number {
    return this.view.loadedCount;
  }

  unload(segment: Segment): void {
    this.view.unload(segment);
  }

  /** Runs `op` once every operation queued before it has finished. */
  run<T>(op: () => Promise<T>): Promise<T> {
    return this.#mutex.run(async () => {
      if (this.#writes.failed) await this.settle();
      return op();
    });
  }

  /** Applies `edit` to the segment owning `id`; resolves once any change is on disk. */
  async change<T>(id: string, edit: (segment: Segment) => T): Promise<T> {
    let written: Promise<void> = Promise.resolve();
    const value = await this.run(async () => {
      const segment = await this.view.segmentFor(id);
      const version = segment.version;
      const value = edit(segment);
      if (segment.version === version) return value;
      if (!this.#folderReady) await createFolder(this.folder);
      this.#folderReady = true;
      const manifest = await this.view.manifest();
      const index = manifest.indexOf(id);
      if (segment.records.size > this.#segmentSize) {
        await this.#split(manifest, index, segment, id);
      } else if (segment.records.size === 0 && index < manifest.entries.length - 1) {
        await this.#drop(manifest, index, segment);
      } else {
        written = this.#writes.track(segment.write());
      }
      return value;
    });
    await written;
    return value;
  }

  /** Deletes the partition's folder. @returns how many records it held */
  clear(): Promise<number> {
    return this.run(async () => {
      await this.settle();
      let count = 0;
      for (const segment of await this.view.allSegments()) count += segment.records.size;
      const tombstone = await moveAway(this.folder);
      this.#reset();
      if (tombstone) await removeTree(tombstone);
      return count;
    });
  }

  /** Waits for the writes in flight; after a failed one, drops everything loaded. */
  async settle(): Promise<void> {
    if (await this.#writes.settle()) this.#reset();
  }

  async #split(manifest: Manifest, index: number, segment: Segment, added: string) {
    const upper = segment.takeUpper(added);
    const file = newSegmentFile();
    const created = Segment.create(join(this.folder, file), upper.records);
    await this.#writes.track(created.write());
    manifest.insert(index + 1, { low: upper.low, file });
    this.view.remember(created);
    await this.#writes.track(manifest.write());
    await this.#writes.track(segment.write());
  }

  async #drop(manifest: Manifest, index: number, segment: Segment) {
    manifest.remove(index);
    await this.#writes.track(manifest.write());
    // A write of the segment still in flight would bring the file back after the unlink.
    await this.settle();
    this.view.discard(segment);
    await removeFile(segment.path);
  }

  #reset(): void {
    this.view.reset();
    this.#folderReady = false;
  }
}
