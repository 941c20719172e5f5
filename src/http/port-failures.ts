/**
 * What the errors of the ports (`formwork/ports`) mean to a client: adapters throw port
 * errors, and only the service turns them into answers with the envelope of docs/design.md §8.
 */
import {
  ForbiddenError,
  MethodNotAllowedError,
  NotFoundError,
  ServiceError,
  UnavailableError,
  ValidationError,
} from "../kernel/errors.ts";
import { StoreUnavailableError } from "../ports/adapter-errors.ts";
import { DownloadRefusedError } from "../ports/download-refused.ts";
import { StoreConflictError, StoreContinuationError } from "../ports/store.ts";

/**
 * The service error a port error answers as, or `null` for an error that is no deliberate
 * answer (a bug, or an adapter's fault: the caller logs it and answers a bare 500).
 */
export function asServiceError(error: unknown): ServiceError | null {
  if (error instanceof ServiceError) return error;
  if (error instanceof StoreUnavailableError) {
    return new UnavailableError(
      "Storage is unavailable at the moment; please try again shortly",
      error.retryAfterSeconds,
      { cause: error },
    );
  }
  if (error instanceof StoreContinuationError) {
    return new ValidationError("The continuation token is not valid", [
      { path: "continuationToken", message: "is not a token this service issued" },
    ]);
  }
  if (error instanceof StoreConflictError) {
    return new ServiceError("conflict", "The record was changed by another request; try again");
  }
  if (error instanceof DownloadRefusedError) return refusal(error);
  return null;
}

function refusal(error: DownloadRefusedError): ServiceError {
  switch (error.reason) {
    case "forbidden":
      return new ForbiddenError(error.message);
    case "method_not_allowed":
      return new MethodNotAllowedError(error.allow, error.message);
    default:
      return new NotFoundError(error.message);
  }
}
