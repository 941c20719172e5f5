import { StoreUnavailableError } from "formwork/ports";

/** Errno codes of a disk that takes no more writes for now: it is full, or the quota is. */
const diskFull = new Set(["ENOSPC", "EDQUOT"]);

/**
 * An error of this adapter, naming it so that logs point at the right place. A full disk is
 * a {@link StoreUnavailableError}, which the service answers 503 (docs/design.md §8): the
 * client may try again once there is room, and its request is no fault of the service's code.
 */
export function fsBlobError(message: string, cause?: unknown): Error {
  const text = `fs blob store: ${message}`;
  if (diskFull.has((cause as { code?: unknown } | null)?.code as string)) {
    return new StoreUnavailableError(text, { cause });
  }
  return new Error(text, cause === undefined ? undefined : { cause });
}
