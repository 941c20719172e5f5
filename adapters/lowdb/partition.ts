import type { FileLayouts } from "./file-layouts.ts";
import { moveAway, removeTree } from "./folders.ts";
import type { FileGate } from "./gate.ts";
import type { Journal } from "./journal.ts";
import type { JournalEntry, RecordChange } from "./journal-entries.ts";
import { Mutex } from "./mutex.ts";
import { PartitionView } from "./partition-view.ts";
import { PendingWrites } from "./pending-writes.ts";
import type { SegmentCache, SegmentOwner } from "./segment-cache.ts";
import type { Entry, Segment } from "./segments.ts";
import { writeSnapshots } from "./snapshots.ts";

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
 * The segment files are snapshots that compaction writes (`writeSnapshots`).
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
  readonly #gate: FileGate;

  /** @param gate what moving the folder away passes, so that a backup sees it or none of it */
  constructor(
    place: PartitionPlace,
    settings: { segmentSize: number; orderFields: readonly string[] },
    held: { segments: SegmentCache<Partition>; fileLayouts: FileLayouts },
    journal: Journal,
    gate: FileGate,
  ) {
    this.#gate = gate;
    this.collection = place.collection;
    this.name = place.name;
    this.folder = place.folder;
    this.#segmentSize = settings.segmentSize;
    this.#orderFields = settings.orderFields;
    this.#journal = journal;
    this.view = new PartitionView(place.folder, held, this, settings.orderFields);
  }

  get idle(): boolean {
    return !this.#mutex.busy && this.#writes.size === 0;
  }

  /** An operation is queued or running: only `run` may read what is loaded. */
  get busy(): boolean {
    return this.#mutex.busy;
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

  /**
   * Follows a journal write of a change made to this partition by a batch, so that `clear`
   * and compaction wait for it and the cache keeps its segments meanwhile.
   */
  follow(written: Promise<void>): Promise<void> {
    return this.#writes.track(written);
  }

  /** Applies an entry read back from the journal at start. */
  async replay(entry: RecordChange | Extract<JournalEntry, { o: "clear" }>): Promise<void> {
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
   * Writes the dirty segments to their snapshot files, step by step on the operation
   * chain (see `snapshots.ts`). Calls go on in between.
   * @returns the files written
   */
  writeSnapshots(): Promise<string[]> {
    const target = {
      folder: this.folder,
      place: { collection: this.collection, partition: this.name },
      view: this.view,
      run: <T>(step: () => Promise<T>) => this.run(step),
      settle: () => this.#writes.settle(),
    };
    return writeSnapshots(target, {
      segmentSize: this.#segmentSize,
      orderFields: this.#orderFields,
    });
  }

  async #removeFolder(): Promise<void> {
    const tombstone = await this.#gate.changing(() => moveAway(this.folder));
    this.view.reset();
    if (tombstone) await removeTree(tombstone);
  }
}
