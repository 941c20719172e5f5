import pRetry, { AbortError } from "p-retry";
import type {
  AttemptOutcome,
  DeliveryControl,
  DeliveryResult,
  WebhookMessage,
  WebhookSender,
} from "../ports/webhook-sender.ts";

// The HTTP client side (node:https and TLS, Standard Webhooks signing) loads on the first
// delivery, not when the service starts: many servers never send one.
let attemptModule: Promise<typeof import("./http-attempt.ts")> | undefined;
const loadAttempt = () => {
  attemptModule ??= import("./http-attempt.ts");
  return attemptModule;
};

/** Options of {@link createHttpWebhookSender}. */
export interface HttpWebhookSenderOptions {
  /** Milliseconds one attempt may take before it counts as a timeout. @default 10000 */
  timeoutMs?: number;
  /** Attempts in all, the first included. @default 8 */
  maxAttempts?: number;
  /** Wait before the second attempt; each later wait doubles. @default 1000 */
  retryBaseMs?: number;
  /** The longest wait between two attempts. @default 60000 */
  retryMaxDelayMs?: number;
  /**
   * Call destinations on loopback, private, link-local and unique-local addresses too. For
   * development only: it lets whoever may add a webhook reach your internal network.
   * @default false
   */
  allowPrivateDestinations?: boolean;
}

/** An attempt that may be retried: a network error, a timeout, a 5xx or a 429. */
class RetryableAttempt extends Error {}

/**
 * The default WebhookSender: `POST`s the message signed per Standard Webhooks, retrying with
 * exponential backoff (p-retry) on network errors, timeouts, 5xx and 429, and never on any
 * other 4xx or on a refused destination. Every attempt carries the same `webhook-id`.
 */
export function createHttpWebhookSender(options: HttpWebhookSenderOptions = {}): WebhookSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxAttempts = options.maxAttempts ?? 8;
  const allowPrivate = options.allowPrivateDestinations ?? false;
  return {
    async deliver(message: WebhookMessage, control: DeliveryControl): Promise<DeliveryResult> {
      let attempts = control.attemptsMade;
      let delivered = false;
      const attempt = async () => {
        const number = attempts + 1;
        if (control.signal.aborted || !(await control.beforeAttempt(number))) {
          throw new AbortError("stopped");
        }
        attempts = number;
        const { attemptDelivery } = await loadAttempt();
        const outcome = await attemptDelivery(message, {
          timeoutMs,
          allowPrivate,
          signal: control.signal,
        });
        await control.afterAttempt(number, outcome);
        if (isSuccess(outcome)) {
          delivered = true;
          return;
        }
        if (isRetryable(outcome)) throw new RetryableAttempt(outcome.kind);
        throw new AbortError(outcome.kind);
      };
      const retriesLeft = maxAttempts - control.attemptsMade - 1;
      if (retriesLeft < 0) return { status: "failed", attempts };
      try {
        await pRetry(attempt, {
          retries: retriesLeft,
          factor: 2,
          minTimeout: options.retryBaseMs ?? 1000,
          maxTimeout: options.retryMaxDelayMs ?? 60_000,
          signal: control.signal,
          shouldRetry: ({ error }) => error instanceof RetryableAttempt,
        });
      } catch (error) {
        const stopped =
          control.signal.aborted || (error instanceof Error && error.message === "stopped");
        if (stopped && !delivered) return { status: "stopped", attempts };
      }
      return { status: delivered ? "delivered" : "failed", attempts };
    },
  };
}

function isSuccess(outcome: AttemptOutcome): boolean {
  return outcome.kind === "response" && outcome.status >= 200 && outcome.status < 300;
}

function isRetryable(outcome: AttemptOutcome): boolean {
  if (outcome.kind === "network_error" || outcome.kind === "timeout") return true;
  return outcome.kind === "response" && (outcome.status >= 500 || outcome.status === 429);
}
