const ignore = () => {};

/**
 * A promise-chain mutex: each operation starts once every operation queued before it has
 * settled, whatever its outcome.
 */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();
  #queued = 0;

  /** Whether an operation is queued or running. */
  get busy(): boolean {
    return this.#queued > 0;
  }

  /** Runs `op` after everything queued before it; resolves or rejects as `op` does. */
  run<T>(op: () => Promise<T>): Promise<T> {
    this.#queued++;
    const result = this.#tail.then(op);
    this.#tail = result.then(ignore, ignore);
    return result.finally(() => {
      this.#queued--;
    });
  }
}
