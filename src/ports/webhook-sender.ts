/**
 * The WebhookSender port: delivers one already-signed webhook request and reports what
 * happened. It never throws for a failed delivery; the outcome says so.
 */
export interface WebhookSender {
  send(request: WebhookRequest): Promise<WebhookOutcome>;
}

/** One HTTP call to a webhook destination. */
export interface WebhookRequest {
  url: string;
  headers: Record<string, string>;
  body: string;
  /** Milliseconds before the attempt is abandoned as a timeout. */
  timeoutMs: number;
}

/** What one attempt came to. */
export type WebhookOutcome =
  | { kind: "response"; status: number }
  | { kind: "network_error"; message: string }
  | { kind: "timeout" };
