/** An error of this adapter, naming it so that logs point at the right place. */
export function fsBlobError(message: string, cause?: unknown): Error {
  return new Error(`fs blob store: ${message}`, cause === undefined ? undefined : { cause });
}

/** Whether a file-system error means only that the path does not exist. */
export function isNotFound(error: unknown): boolean {
  return (error as { code?: unknown } | null)?.code === "ENOENT";
}
