/** What the Azure Storage SDK's failures mean for the BlobStore port. */

import { StoreUnavailableError } from "formwork/ports";
import { httpStatusOf, isNetworkFailure, isNotFound } from "formwork/ports/kit";

/** An error of this adapter, naming it so that logs point at the right place. */
export function azureBlobError(message: string, cause?: unknown): Error {
  return new Error(`azure blob store: ${message}`, cause === undefined ? undefined : { cause });
}

/**
 * Whether Azure answered that the blob, or its whole container, does not exist. Other 404s
 * (an unknown account or path) are a misconfiguration, which must fail loudly.
 */
export function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return isNotFound(error) && (code === "BlobNotFound" || code === "ContainerNotFound");
}

/**
 * Turns a failure of operation `what` into what the port promises: a
 * {@link StoreUnavailableError} when Azure Storage cannot be reached, times out or is
 * unavailable (after the SDK's own retries), and otherwise an error naming this adapter with
 * the SDK's error as `cause`.
 */
export function translate(what: string, error: unknown): Error {
  if (error instanceof StoreUnavailableError) return error;
  const status = httpStatusOf(error);
  const unreachable =
    status === undefined ? isNetworkFailure(error) : status === 408 || status >= 500;
  if (!unreachable) return azureBlobError(`${what} failed`, error);
  const cause = azureBlobError(`${what} failed`, error);
  return new StoreUnavailableError(cause.message, { cause });
}
