/**
 * What an adapter makes of its backend's failures: the one error the service answers 503
 * for, and the tests every adapter needs to tell "not found" and "unreachable" apart from
 * real faults. Adapters turn only a true "not found" into `null`; swallowing anything else
 * that way is the classic bug of storage adapters.
 */

/**
 * Thrown by an adapter (of any port: Store, BlobStore) when its backend cannot be reached,
 * times out, or refuses for a while (throttled past its own retries, out of service, a disk
 * that stopped taking writes). The service answers 503 `service_unavailable`, with
 * `Retry-After` when {@link StoreUnavailableError.retryAfterSeconds} is known. The message
 * is for logs and names the adapter; the client gets a sentence of the service's own.
 */
export class StoreUnavailableError extends Error {
  /** Whole seconds after which trying again may succeed, when the backend said so. */
  readonly retryAfterSeconds: number | undefined;

  constructor(message: string, options?: ErrorOptions & { retryAfterSeconds?: number }) {
    super(message, options);
    this.name = "StoreUnavailableError";
    const seconds = options?.retryAfterSeconds;
    this.retryAfterSeconds =
      seconds !== undefined && Number.isFinite(seconds) && seconds >= 0
        ? Math.ceil(seconds)
        : undefined;
  }
}

/**
 * The HTTP status a failed SDK call carries, when the failure is an answer at all: read
 * from `statusCode` (Azure SDKs), a numeric `code` (Cosmos DB), `status` (fetch-style
 * errors) or `$metadata.httpStatusCode` (AWS SDK v3).
 */
export function httpStatusOf(error: unknown): number | undefined {
  if (typeof error !== "object" || error === null) return undefined;
  const { statusCode, code, status, $metadata } = error as {
    statusCode?: unknown;
    code?: unknown;
    status?: unknown;
    $metadata?: { httpStatusCode?: unknown };
  };
  for (const candidate of [statusCode, code, status, $metadata?.httpStatusCode]) {
    if (typeof candidate === "number" && candidate >= 100 && candidate <= 599) return candidate;
  }
  return undefined;
}

/**
 * Whether a failure means only that the thing asked for does not exist: a file-system
 * `ENOENT`, or an HTTP 404 from an SDK (see {@link httpStatusOf}). An adapter whose backend
 * also answers 404 for a misconfiguration (a missing Cosmos DB container, sub-status 1003)
 * narrows this further, since that must fail loudly rather than read as "no record".
 */
export function isNotFound(error: unknown): boolean {
  if ((error as { code?: unknown } | null)?.code === "ENOENT") return true;
  return httpStatusOf(error) === 404;
}

/**
 * Whether a failure of a network call, without an HTTP status, came from the network: a
 * refused or reset connection, an unknown host (any errno-style code), an aborted request or
 * the SDK's own request timeout. Meant for SDK calls only: on a file-system call every
 * errno would count.
 */
export function isNetworkFailure(error: unknown): boolean {
  const { name, code } = (error ?? {}) as { name?: unknown; code?: unknown };
  if (name === "AbortError" || name === "TimeoutError") return true;
  return (
    typeof code === "string" &&
    /^(E[A-Z_]+|TimeoutError|REQUEST_SEND_ERROR|UND_ERR_\w+)$/.test(code)
  );
}
