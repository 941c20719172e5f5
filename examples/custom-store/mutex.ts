/**
 * One-at-a-time: each task starts when the one before it has settled. A dozen lines, so the
 * example needs no package for it; a failing task does not stop the ones after it.
 */
export class Mutex {
  #tail: Promise<unknown> = Promise.resolve();

  /** Runs `task` once every task queued before it has settled; answers what it answers. */
  run<T>(task: () => Promise<T> | T): Promise<T> {
    const result = this.#tail.then(task, task);
    this.#tail = result.catch(() => undefined);
    return result;
  }
}
