import pRetry from "p-retry";
import { StoreConflictError } from "./store.ts";

/**
 * How a write that lost a race ({@link StoreConflictError}) is tried again. The wait before
 * attempt n + 1 is drawn at random from [0, min(`maxDelayMs`, `baseDelayMs` · 2^(n−1)))
 * milliseconds ("full jitter"), so that a crowd of writers of one record spreads out
 * instead of colliding again in lock step.
 */
export interface ConflictRetryOptions {
  /** The most attempts in all, the first one included. @default 20 */
  attempts?: number;
  /** The longest the first wait may be, in milliseconds; each later bound doubles. @default 1 */
  baseDelayMs?: number;
  /** The longest any wait may be, in milliseconds. @default 20 */
  maxDelayMs?: number;
}

/** The policy every retry on conflict follows unless told otherwise. */
export const conflictRetryDefaults: Readonly<Required<ConflictRetryOptions>> = Object.freeze({
  attempts: 20,
  baseDelayMs: 1,
  maxDelayMs: 20,
});

/**
 * Runs `attempt` (numbered from 1) until it resolves, again after each
 * {@link StoreConflictError} it throws, waiting as {@link ConflictRetryOptions} says. Each
 * attempt must read afresh what it writes: repeating a write on a stale etag only loses
 * again.
 * @throws the last {@link StoreConflictError} when every attempt lost; any other error at once
 */
export function retryOnConflict<R>(
  attempt: (attemptNumber: number) => Promise<R>,
  options: ConflictRetryOptions = {},
): Promise<R> {
  const attempts = options.attempts ?? conflictRetryDefaults.attempts;
  const baseDelayMs = options.baseDelayMs ?? conflictRetryDefaults.baseDelayMs;
  const maxDelayMs = options.maxDelayMs ?? conflictRetryDefaults.maxDelayMs;
  if (!Number.isInteger(attempts) || attempts < 1) {
    throw new RangeError("attempts must be a whole number of at least 1");
  }
  return retrying(attempt, attempts, (attemptNumber: number) => {
    const bound = Math.min(maxDelayMs, baseDelayMs * 2 ** (attemptNumber - 1));
    return new Promise((resolve) => setTimeout(resolve, Math.random() * bound));
  });
}

/** {@link retryOnConflict} once its options are checked; `wait` waits after attempt n. */
async function retrying<R>(
  attempt: (attemptNumber: number) => Promise<R>,
  attempts: number,
  wait: (attemptNumber: number) => Promise<unknown>,
): Promise<R> {
  // The first attempt runs bare: most writes win at once, and p-retry costs about 10 µs a
  // call even then, on every S2.
  try {
    return await attempt(1);
  } catch (error) {
    if (!(error instanceof StoreConflictError) || attempts === 1) throw error;
  }
  await wait(1);
  return pRetry((attemptNumber) => attempt(attemptNumber + 1), {
    retries: attempts - 2,
    // p-retry's own jitter stays within [1×, 2×] of its bound and vanishes at its cap; the
    // wait here is full jitter instead, made in `shouldRetry`, which p-retry calls only
    // when another attempt follows.
    minTimeout: 0,
    async shouldRetry({ error, attemptNumber }) {
      if (!(error instanceof StoreConflictError)) return false;
      await wait(attemptNumber + 1);
      return true;
    },
  });
}
