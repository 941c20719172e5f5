/**
 * A promise-chain mutex: each operation starts once every operation queued before it has
 * settled, whatever its outcome.
 */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();
  #queued = 0;
  readonly #settled = () => {
    this.#queued--;
  };

  /** Whether an operation is queued or running. */
  get busy(): boolean {
    return this.#queued > 0;
  }

  /**
   * Runs `op` after everything queued before it; resolves or rejects as `op` does. With
   * nothing queued, `op` starts at once: each S2 runs several operations on lowdb, and
   * waiting on a settled tail cost promises for nothing (hot path).
   */
  run<T>(op: () => Promise<T>): Promise<T> {
    const idle = this.#queued === 0;
    this.#queued++;
    const result = idle ? start(op) : this.#tail.then(op);
    this.#tail = result.then(this.#settled, this.#settled);
    return result;
  }
}

/** `op()`, a synchronous throw as a rejection. */
function start<T>(op: () => Promise<T>): Promise<T> {
  try {
    return op();
  } catch (error) {
    return Promise.reject(error);
  }
}
