import pRetry, { AbortError } from "p-retry";
import type { AttemptOutcome, DeliveryControl, DeliveryResult } from "../ports/webhook-sender.ts";

/** How often and how soon a delivery is tried again. */
export interface RetryPolicy {
  /** Attempts in all, the first included. */
  maxAttempts: number;
  /** Wait before the second attempt; each later wait doubles. */
  retryBaseMs: number;
  /** The longest wait between two attempts. */
  retryMaxDelayMs: number;
}

/** An attempt that may be retried: a network error, a timeout, a 5xx or a 429. */
class RetryableAttempt extends Error {}

/**
 * Makes attempts (`attempt`) with exponential backoff (p-retry) under `control`, on network
 * errors, timeouts, 5xx and 429, and never on any other answer or on a refusal. The webhook
 * sender and the e-mail deliveries of the outbox share it, so both follow one rule.
 */
export async function retryAttempts(
  attempt: (signal: AbortSignal) => Promise<AttemptOutcome>,
  control: DeliveryControl,
  policy: RetryPolicy,
): Promise<DeliveryResult> {
  let attempts = control.attemptsMade;
  let delivered = false;
  const once = async () => {
    const number = attempts + 1;
    if (control.signal.aborted || !(await control.beforeAttempt(number))) {
      throw new AbortError("stopped");
    }
    attempts = number;
    const outcome = await attempt(control.signal);
    await control.afterAttempt(number, outcome);
    if (isSuccess(outcome)) {
      delivered = true;
      return;
    }
    if (isRetryable(outcome)) throw new RetryableAttempt(outcome.kind);
    throw new AbortError(outcome.kind);
  };
  const retriesLeft = policy.maxAttempts - control.attemptsMade - 1;
  if (retriesLeft < 0) return { status: "failed", attempts };
  try {
    await pRetry(once, {
      retries: retriesLeft,
      factor: 2,
      minTimeout: policy.retryBaseMs,
      maxTimeout: policy.retryMaxDelayMs,
      signal: control.signal,
      shouldRetry: ({ error }) => error instanceof RetryableAttempt,
    });
  } catch (error) {
    const stopped =
      control.signal.aborted || (error instanceof Error && error.message === "stopped");
    if (stopped && !delivered) return { status: "stopped", attempts };
  }
  return { status: delivered ? "delivered" : "failed", attempts };
}

/** Whether an attempt delivered: a 2xx answer. */
export function isSuccess(outcome: AttemptOutcome): boolean {
  return outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300;
}

function isRetryable(outcome: AttemptOutcome): boolean {
  if (outcome.kind === "network_error" || outcome.kind === "timeout") return true;
  return outcome.kind === "response" && (outcome.status >= 500 || outcome.status === 429);
}
