import type { Segment } from "./segments.ts";

/** What the cache needs of the partition a segment belongs to. */
export interface SegmentOwner {
  /** No operation queued or running and no write in flight: nobody holds its segments. */
  readonly idle: boolean;
  /** How many of its segments are loaded. */
  readonly loadedCount: number;
  /** Forgets a loaded segment; it is read from disk again when next needed. */
  unload(segment: Segment): void;
}

/**
 * A least-recently-used bound on the loaded segments of a whole store. The bound is soft:
 * segments of busy partitions are skipped (an operation may hold them), dirty segments stay
 * until compaction has written them (only the journal has their changes), and one query of
 * a partition with more segments than the bound loads them all before anything is evicted.
 */
export class SegmentCache<Owner extends SegmentOwner> {
  readonly #max: number;
  readonly #forget: (owner: Owner) => void;
  // A Map iterates in insertion order, so re-inserting on use keeps the oldest first.
  readonly #lru = new Map<Segment, Owner>();

  /** @param forget called for a partition that had its last loaded segment evicted */
  constructor(max: number, forget: (owner: Owner) => void) {
    this.#max = max;
    this.#forget = forget;
  }

  touch(segment: Segment, owner: Owner): void {
    this.#lru.delete(segment);
    this.#lru.set(segment, owner);
  }

  remove(segment: Segment): void {
    this.#lru.delete(segment);
  }

  /** Evicts the least recently used segments of idle partitions until within the bound. */
  trim(): void {
    for (const [segment, owner] of this.#lru) {
      if (this.#lru.size <= this.#max) return;
      if (!owner.idle || segment.dirty) continue;
      this.#lru.delete(segment);
      owner.unload(segment);
      if (owner.loadedCount === 0) this.#forget(owner);
    }
  }
}
