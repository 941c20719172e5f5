import { retryAttempts } from "../ports/webhook-retries.ts";
import type {
  DeliveryControl,
  DeliveryResult,
  WebhookMessage,
  WebhookSender,
} from "../ports/webhook-sender.ts";

// The HTTP client side (node:https and TLS, Standard Webhooks signing) loads on the first
// delivery, not when the service starts: many servers never send one.
let attemptModule: Promise<typeof import("./http-attempt.ts")> | undefined;
/** The HTTP client side, loaded once on first use. */
export const loadAttempt = () => {
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

/**
 * The default WebhookSender: `POST`s the message signed per Standard Webhooks (unsigned when
 * it has no secret, as a destination post), retrying with exponential backoff (p-retry) on
 * network errors, timeouts, 5xx and 429, and never on any other 4xx or on a refused
 * destination. Every attempt carries the same `webhook-id`.
 */
export function createHttpWebhookSender(options: HttpWebhookSenderOptions = {}): WebhookSender {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const allowPrivate = options.allowPrivateDestinations ?? false;
  const policy = {
    maxAttempts: options.maxAttempts ?? 8,
    retryBaseMs: options.retryBaseMs ?? 1000,
    retryMaxDelayMs: options.retryMaxDelayMs ?? 60_000,
  };
  return {
    deliver: (message: WebhookMessage, control: DeliveryControl): Promise<DeliveryResult> =>
      retryAttempts(
        async (signal) => {
          const { attemptDelivery } = await loadAttempt();
          return attemptDelivery(message, { timeoutMs, allowPrivate, signal });
        },
        control,
        policy,
      ),
  };
}
