/**
 * Keeps a backup's freeze apart from the steps that move or replace files under the
 * store's directory: compaction (new segment files, a new journal file, older ones deleted)
 * and a partition's folder moved away. Those run as `changing`, any number at once; a
 * freeze runs `frozen` once none of them is in flight, and those that come meanwhile wait
 * for it to end. A freeze never waits for a new `changing` to finish, only for those
 * already in flight, so it cannot wait for itself through an operation chain (compaction
 * waits for partition chains, and a partition's deletion for the gate, while it holds its
 * own chain). Reads and writes of records never pass the gate.
 */
export class FileGate {
  #changing = 0;
  #frozen: Promise<void> | undefined;
  #idle: (() => void)[] = [];

  /** Runs `op`, which moves or replaces files, after any freeze in progress. */
  async changing<T>(op: () => Promise<T>): Promise<T> {
    while (this.#frozen) await this.#frozen;
    this.#changing++;
    try {
      return await op();
    } finally {
      this.#changing--;
      if (this.#changing === 0) for (const resolve of this.#idle.splice(0)) resolve();
    }
  }

  /** Runs `op` once no `changing` step is in flight, holding off new ones until it ends. */
  async frozen<T>(op: () => Promise<T>): Promise<T> {
    while (this.#frozen) await this.#frozen;
    while (this.#changing > 0) {
      await new Promise<void>((resolve) => this.#idle.push(resolve));
      // Another freeze may have started while this one waited.
      while (this.#frozen) await this.#frozen;
    }
    let thaw = () => {};
    this.#frozen = new Promise<void>((resolve) => {
      thaw = resolve;
    });
    try {
      return await op();
    } finally {
      this.#frozen = undefined;
      thaw();
    }
  }
}
