/**
 * The file writes of one partition that have started and not yet settled, and whether any
 * of them failed since the last `settle`.
 */
export class PendingWrites {
  readonly #writes = new Set<Promise<void>>();
  #failed = false;

  get size(): number {
    return this.#writes.size;
  }

  /** Whether a write failed since the last `settle`. */
  get failed(): boolean {
    return this.#failed;
  }

  /**
   * Follows `write` and returns it unchanged. Following counts as handling it, so a write
   * nobody awaits any more cannot become an unhandled rejection.
   */
  track(write: Promise<void>): Promise<void> {
    this.#writes.add(write);
    const done = () => this.#writes.delete(write);
    write.then(done, () => {
      this.#failed = true;
      done();
    });
    return write;
  }

  /** Waits for every write in flight. @returns whether one failed since the last call */
  async settle(): Promise<boolean> {
    await Promise.allSettled([...this.#writes]);
    const failed = this.#failed;
    this.#failed = false;
    return failed;
  }
}
