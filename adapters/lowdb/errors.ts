/** An error of this adapter, naming it so that logs point at the right place. */
export function lowdbError(message: string, cause?: unknown): Error {
  return new Error(`lowdb store: ${message}`, cause === undefined ? undefined : { cause });
}
