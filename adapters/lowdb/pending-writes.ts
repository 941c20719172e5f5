/** The journal writes of one partition that have started and not yet settled. */
export class PendingWrites {
  readonly #writes = new Set<Promise<void>>();

  get size(): number {
    return this.#writes.size;
  }

  /**
   * Follows `write` and returns it unchanged. Following counts as handling it, so a write
   * nobody awaits any more cannot become an unhandled rejection.
   */
  track(write: Promise<void>): Promise<void> {
    this.#writes.add(write);
    const done = () => this.#writes.delete(write);
    write.then(done, done);
    return write;
  }

  /** Waits for every write in flight, whatever its outcome. */
  async settle(): Promise<void> {
    await Promise.allSettled([...this.#writes]);
  }
}
