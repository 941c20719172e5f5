/** An error of this adapter, naming it so that logs point at the right place. */
export function fsBlobError(message: string, cause?: unknown): Error {
  return new Error(`fs blob store: ${message}`, cause === undefined ? undefined : { cause });
}
