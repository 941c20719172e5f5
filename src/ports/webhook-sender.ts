/**
 * The WebhookSender port: delivers one webhook message to its destination, making as many
 * attempts as its retry policy allows, and reports each attempt as it goes. It never throws
 * for a failed delivery; the outcome says so.
 *
 * The service decides *when* a message is due and makes sure one instance delivers it at a
 * time; the sender decides how each attempt is made, signed and retried.
 */
export interface WebhookSender {
  deliver(message: WebhookMessage, control: DeliveryControl): Promise<DeliveryResult>;
}

/** One message to a webhook destination. */
export interface WebhookMessage {
  /** The destination URL (`http` or `https`). */
  url: string;
  /** The Standard Webhooks `webhook-id`: the same on every attempt and every redelivery. */
  id: string;
  /** The JSON body, sent byte for byte as given. */
  payload: string;
  /**
   * The webhook's signing secret, `whsec_<base64>`; absent for a message sent unsigned (a
   * form's destination post, which the owner authenticates by its custom header instead).
   */
  secret?: string;
  /** Headers to add, such as the webhook's custom header. */
  headers: Record<string, string>;
}

/** How the service steers one delivery. */
export interface DeliveryControl {
  /** Attempts already made by an earlier holder of this delivery; they count to the maximum. */
  attemptsMade: number;
  /** Called before each attempt; resolving `false` stops the delivery without that attempt. */
  beforeAttempt(attempt: number): Promise<boolean>;
  /** Called after each attempt with what it came to. */
  afterAttempt(attempt: number, outcome: AttemptOutcome): Promise<void>;
  /** Aborts the delivery (the service is closing); the sender stops waiting and returns. */
  signal: AbortSignal;
}

/** What one attempt came to. */
export type AttemptOutcome =
  | { kind: "response"; status: number }
  | { kind: "network_error"; message: string }
  | { kind: "timeout" }
  /** Not attempted: the destination is not allowed (a private address, say). */
  | { kind: "refused"; message: string };

/**
 * How a delivery ended: `delivered` (a 2xx answer), `failed` (no more attempts will be
 * made), or `stopped` (by `beforeAttempt` or the signal; it may be resumed later).
 */
export type DeliveryResult = { status: "delivered" | "failed" | "stopped"; attempts: number };
