import type { AttemptOutcome, WebhookMessage } from "./webhook-sender.ts";

/**
 * The network as webhook and destination posts meet it: which addresses may be called, and
 * one unsigned `POST` to a form's destination. The domain decides when to call; this port
 * decides whether a host is reachable and does the I/O, so that the domain never looks a
 * name up in DNS itself. The service wires `src/webhooks/destinations.ts` into it.
 */
export interface Destinations {
  /**
   * Why `url` may not be called, or `null` when it may (a scheme other than http(s),
   * credentials in the URL, or a host that resolves to a private address).
   */
  problem(url: URL): Promise<string | null>;
  /**
   * One unsigned `POST` of `message` (its `secret` is ignored), given up as a `timeout` when
   * `timeoutMs` passes or `signal` aborts.
   */
  post(
    message: WebhookMessage,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<AttemptOutcome>;
}
