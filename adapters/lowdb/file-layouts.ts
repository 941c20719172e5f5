import type { FileLayout } from "./snapshot-format.ts";

/**
 * What reading each segment file whole found (`FileLayout`: its header parsed, its line
 * starts, its blocks' CRCs), by path, for the pages that read files of segments that are
 * not loaded: the least recently used are forgotten beyond `max` (docs/design.md §18,
 * "Range reads"). A layout is only ever used for a file that opens with the very same first
 * line, and each block read on it is checked against its CRC, so a forgotten or stale one
 * costs a whole read of the file, nothing else.
 */
export class FileLayouts {
  readonly #max: number;
  // A Map iterates in insertion order, so re-inserting on use keeps the oldest first.
  readonly #layouts = new Map<string, FileLayout>();

  constructor(max: number) {
    this.#max = max;
  }

  get(path: string): FileLayout | undefined {
    const layout = this.#layouts.get(path);
    if (layout) {
      this.#layouts.delete(path);
      this.#layouts.set(path, layout);
    }
    return layout;
  }

  set(path: string, layout: FileLayout): void {
    this.#layouts.delete(path);
    this.#layouts.set(path, layout);
    if (this.#layouts.size <= this.#max) return;
    const oldest = this.#layouts.keys().next();
    if (!oldest.done) this.#layouts.delete(oldest.value);
  }

  get size(): number {
    return this.#layouts.size;
  }
}
