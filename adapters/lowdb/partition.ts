import { basename, join } from "node:path";
import { newSegmentFile } from "./file-names.ts";
import { createFolder, moveAway, removeFile, removeTree } from "./folders.ts";
import type { Journal } from "./journal.ts";
import type { JournalEntry } from "./journal-entries.ts";
import type { Manifest } from "./manifest.ts";
import { Mutex } from "./mutex.ts";
import { PartitionView } from "./partition-view.ts";
import { PendingWrites } from "./pending-writes.ts";
import type { SegmentCache, SegmentOwner } from "./segment-cache.ts";
import { type Entry, Segment } from "./segments.ts";

/** Where a partition lives: its names and its folder. */
export interface PartitionPlace {
  collection: string;
  name: string;
  folder: string;
}

/**
 * The records of one (collection, partition). Operations run one at a time on a promise
 * chain, so an etag check and the write it guards are atomic. A change is made in memory
 * and appended to the journal; the operation leaves the chain then, and its caller awaits
 * the journal's batch. If the batch fails, the journal undoes the change (see `Journal`).
 *
 * The segment files are snapshots that compaction writes (`writeSnapshots`), restructuring
 * in a crash-safe order:
 * - split: the new upper segments, then the manifest, then the trimmed lower segment. A
 *   crash before the manifest leaves unlisted files; after it, the lower file still holds
 *   copies of the moved records, which `Segment.load` ignores as outside its range.
 * - an emptied segment (never the last one): the manifest, then the unlink.
 */
export class Partition implements SegmentOwner {
  readonly collection: string;
  readonly name: string;
  readonly folder: string;
  /** What is loaded; use it only inside `run`. */
  readonly view: PartitionView;
  readonly #segmentSize: number;
  readonly #orderFields: readonly string[];
  readonly #journal: Journal;
  readonly #mutex = new Mutex();
  readonly #writes = new PendingWrites();

  constructor(
    place: PartitionPlace,
    settings: { segmentSize: number; orderFields: readonly string[] },
    cache: SegmentCache<Partition>,
    journal: Journal,
  ) {
    this.collection = place.collection;
    this.name = place.name;
    this.folder = place.folder;
    this.#segmentSize = settings.segmentSize;
    this.#orderFields = settings.orderFields;
    this.#journal = journal;
    this.view = new PartitionView(place.folder, cache, this);
  }

  get idle(): boolean {
    return !this.#mutex.busy && this.#writes.size === 0;
  }

  get loadedCount(): number {
    return this.view.loadedCount;
  }

  /** Whether it holds changes that only the journal has. */
  get dirty(): boolean {
    return this.view.dirty;
  }

  unload(segment: Segment): void {
    this.view.unload(segment);
  }

  /** Runs `op` once every operation queued before it has finished. */
  run<T>(op: () => Promise<T>): Promise<T> {
    return this.#mutex.run(op);
  }

  /** Applies `edit` to the segment owning `id`; resolves once any change is journaled. */
  async change<T>(id: string, edit: (segment: Segment) => T): Promise<T> {
    let written: Promise<void> = Promise.resolve();
    const value = await this.run(async () => {
      const segment = await this.view.segmentFor(id);
      const before = segment.records.get(id);
      const version = segment.version;
      const value = edit(segment);
      if (segment.version === version) return value;
      const after = segment.records.get(id);
      const place = { c: this.collection, p: this.name };
      const entry: JournalEntry = after
        ? { ...place, o: "put", r: after.record, e: after.etag }
        : { ...place, o: "del", i: id };
      written = this.#writes.track(this.#journal.append(entry, () => segment.set(id, before)));
      return value;
    });
    await written;
    return value;
  }

  /** Applies an entry read back from the journal at start. */
  async replay(entry: JournalEntry): Promise<void> {
    if (entry.o === "clear") return this.#removeFolder();
    const id = entry.o === "put" ? entry.r.id : entry.i;
    const segment = await this.view.segmentFor(id);
    const replayed: Entry | undefined =
      entry.o === "put" ? { record: entry.r, etag: entry.e } : undefined;
    segment.set(id, replayed);
  }

  /** Journals the partition's deletion, then deletes its folder. @returns how many records it held */
  clear(): Promise<number> {
    return this.run(async () => {
      await this.#writes.settle();
      let count = 0;
      for (const segment of await this.view.allSegments()) count += segment.records.size;
      // Nothing changes in memory before the entry is written, so there is nothing to undo.
      await this.#journal.append({ c: this.collection, p: this.name, o: "clear" }, () => {});
      await this.#removeFolder();
      return count;
    });
  }

  /**
   * Writes every dirty segment to its file, splitting those grown past the segment size
   * and dropping emptied ones. Call it inside `run`. A failure leaves memory as it was,
   * with the segments still dirty.
   * @returns the files written
   */
  async writeSnapshots(): Promise<string[]> {
    await this.#writes.settle();
    if (!this.dirty) return [];
    await createFolder(this.folder);
    const manifest = await this.view.manifest();
    const written: string[] = [];
    // From the last segment down, so that restructuring never shifts an index still ahead.
    for (let index = manifest.entries.length - 1; index >= 0; index--) {
      const segment = this.view.loadedAt(manifest, index);
      if (!segment?.dirty) continue;
      if (segment.records.size > this.#segmentSize) {
        written.push(...(await this.#split(manifest, index, segment)));
      } else if (segment.records.size === 0 && index < manifest.entries.length - 1) {
        written.push(await this.#drop(manifest, index, segment));
      } else {
        await segment.write();
        written.push(segment.path);
      }
    }
    if (this.#noteBounds(manifest, new Set(written))) written.push(await manifest.write());
    return written;
  }

  /** Records in the manifest the order fields' bounds of the segment files just written. */
  #noteBounds(manifest: Manifest, written: Set<string>): boolean {
    let changed = false;
    for (let index = 0; index < manifest.entries.length; index++) {
      const segment = this.view.loadedAt(manifest, index);
      if (!segment || segment.dirty || !written.has(segment.path)) continue;
      for (const field of this.#orderFields) {
        if (manifest.setBounds(index, field, segment.boundsOf(field))) changed = true;
      }
    }
    return changed;
  }

  async #split(manifest: Manifest, index: number, segment: Segment): Promise<string[]> {
    const chunks = segment.overflow(this.#segmentSize);
    const created = chunks.map((chunk) =>
      Segment.create(join(this.folder, newSegmentFile()), chunk.records),
    );
    for (const upper of created) await upper.write();
    const saved = manifest.save();
    manifest.insert(
      index + 1,
      chunks.map((chunk, k) => ({ low: chunk.low, file: basename((created[k] as Segment).path) })),
    );
    let manifestPath: string;
    try {
      manifestPath = await manifest.write();
    } catch (error) {
      manifest.restore(saved);
      throw error;
    }
    for (const upper of created) this.view.remember(upper);
    for (const chunk of chunks) segment.forget(chunk.records.keys());
    await segment.write();
    return [...created.map((upper) => upper.path), manifestPath, segment.path];
  }

  async #drop(manifest: Manifest, index: number, segment: Segment): Promise<string> {
    const saved = manifest.save();
    manifest.remove(index);
    let manifestPath: string;
    try {
      manifestPath = await manifest.write();
    } catch (error) {
      manifest.restore(saved);
      throw error;
    }
    this.view.discard(segment);
    await removeFile(segment.path);
    return manifestPath;
  }

  async #removeFolder(): Promise<void> {
    const tombstone = await moveAway(this.folder);
    this.view.reset();
    if (tombstone) await removeTree(tombstone);
  }
}
