/** What the Azure Storage SDK's failures mean for the BlobStore port. */
import { ServiceError } from "../../src/kernel/errors.ts";

/** An error of this adapter, naming it so that logs point at the right place. */
export function azureBlobError(message: string, cause?: unknown): Error {
  return new Error(`azure blob store: ${message}`, cause === undefined ? undefined : { cause });
}

/** The HTTP status Azure Storage answered with, when the failure is an answer at all. */
export function statusOf(error: unknown): number | undefined {
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === "number" ? status : undefined;
}

/** Whether Azure answered that the blob, or its whole container, does not exist. */
export function isMissing(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return statusOf(error) === 404 && (code === "BlobNotFound" || code === "ContainerNotFound");
}

/**
 * Turns a failure of operation `what` into what the port promises: a 503 `ServiceError`
 * when Azure Storage cannot be reached, times out or is unavailable (after the SDK's own
 * retries), and otherwise an error naming this adapter with the SDK's error as `cause`.
 */
export function translate(what: string, error: unknown): Error {
  if (error instanceof ServiceError) return error;
  const status = statusOf(error);
  const unreachable =
    status === undefined ? isNetworkFailure(error) : status === 408 || status >= 500;
  if (!unreachable) return azureBlobError(`${what} failed`, error);
  return new ServiceError(
    "service_unavailable",
    "File storage is unavailable at the moment; please try again shortly",
    undefined,
    { cause: azureBlobError(`${what} failed`, error) },
  );
}

function isNetworkFailure(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  if (name === "AbortError" || name === "TimeoutError") return true;
  return typeof code === "string" && /^(E[A-Z_]+|REQUEST_SEND_ERROR|UND_ERR_\w+)$/.test(code);
}
