/** What the Cosmos DB SDK's failures mean for the Store port. */

import { StoreConflictError, StoreUnavailableError } from "formwork/ports";
import { httpStatusOf, isNetworkFailure, isNotFound } from "formwork/ports/kit";

/** An error of this adapter, naming it so that logs point at the right place. */
export function cosmosError(message: string, cause?: unknown): Error {
  return new Error(`cosmos store: ${message}`, cause === undefined ? undefined : { cause });
}

/** The HTTP status Cosmos DB answered with, when the failure is an answer at all. */
export const statusOf = httpStatusOf;

/**
 * Whether Cosmos DB answered 404 for the item itself. Sub-status 1003 says the container or
 * database is missing: a misconfiguration, never "not found".
 */
export function isItemNotFound(error: unknown): boolean {
  return isNotFound(error) && (error as { substatus?: unknown }).substatus !== 1003;
}

// Statuses worth trying again later: throttled past the SDK's own retries (429), timed out
// (408), gone after a split the SDK could not follow (410), unavailable (503).
const transient = new Set([408, 410, 429, 449, 503]);

/**
 * Whether trying the same read again soon may succeed: Cosmos DB answered 408, 410, 449 or
 * 503, or dropped the connection. 429 is not here: the SDK has already waited and retried
 * it as long as its retry options allow.
 */
export function isTransient(error: unknown): boolean {
  const status = statusOf(error);
  if (status !== undefined) return status !== 429 && transient.has(status);
  return (error as { code?: unknown } | null)?.code === "ECONNRESET";
}

/**
 * Turns a failure of operation `what` into what the Store port promises: a conflict for
 * 409 and 412, a {@link StoreUnavailableError} when Cosmos DB cannot be reached or stays
 * busy, and an error naming this adapter, with the SDK's error as `cause`, for anything else.
 */
export function translate(what: string, error: unknown): Error {
  const status = statusOf(error);
  if (status === 409) return new StoreConflictError("exists", undefined, { cause: error });
  if (status === 412) return new StoreConflictError("etag", undefined, { cause: error });
  if (status === undefined ? isNetworkFailure(error) : transient.has(status)) {
    return unavailable(cosmosError(`${what} failed`, error), retryAfterOf(error));
  }
  if (error instanceof StoreUnavailableError || error instanceof TypeError) return error;
  if (status === 400 && /composite index/i.test(String((error as Error).message))) {
    const fix = "give the field in orderFields, or add it to the container's indexing policy";
    return cosmosError(`${what} failed: no composite index for its ORDER BY; ${fix}`, error);
  }
  return cosmosError(`${what} failed`, error);
}

/** The failure a caller gets while the database cannot be reached; the service answers 503. */
function unavailable(cause: Error, retryAfterSeconds?: number): StoreUnavailableError {
  return new StoreUnavailableError(cause.message, { cause, retryAfterSeconds });
}

/** The wait Cosmos DB asked for with a 429 (`x-ms-retry-after-ms`), in seconds. */
function retryAfterOf(error: unknown): number | undefined {
  const ms = (error as { retryAfterInMs?: unknown } | null)?.retryAfterInMs;
  return typeof ms === "number" && ms > 0 ? ms / 1000 : undefined;
}
