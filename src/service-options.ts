/**
 * What an embedder configures: the options of `createFormService` (service.ts), their
 * defaults, and the checks that refuse a combination no request could be served under.
 */
import type { Registry } from "prom-client";
import type { PartnerOptions } from "./domain/accounts/index.ts";
import type { Limits } from "./domain/context.ts";
import type { RateLimitOptions } from "./http/rate-limits.ts";
import type { BlobStore } from "./ports/blob-store.ts";
import type { Logger } from "./ports/logger.ts";
import type { Mailer } from "./ports/mailer.ts";
import type { Payments } from "./ports/payments.ts";
import type { Store } from "./ports/store.ts";
import type { RetryPolicy } from "./ports/webhook-retries.ts";
import type { WebhookSender } from "./ports/webhook-sender.ts";

/** Options of `createFormService`. */
export interface FormServiceOptions {
  /** Where records live. */
  store: Store;
  /** Where attachment files live. */
  blobs?: BlobStore;
  /**
   * Delivers submission webhooks.
   * @default createHttpWebhookSender({ allowPrivateDestinations: allowPrivateWebhookDestinations })
   */
  webhookSender?: WebhookSender;
  /**
   * Lets webhooks point at loopback, private, link-local and unique-local addresses. For
   * development only: it lets whoever may add a webhook reach your internal network.
   * @default false
   */
  allowPrivateWebhookDestinations?: boolean;
  /**
   * Sends the forms' confirmation e-mails (docs/design.md §11), e.g. `createSmtpMailer(…)` from
   * `formwork/adapters/smtp`.
   * @default undefined: no e-mail can be sent; each one a form calls for counts as failed
   */
  mailer?: Mailer;
  /**
   * Takes the payments of forms whose `paymentsettings` are enabled (docs/design.md §26),
   * e.g. `createStripePayments(…)` from `formwork/adapters/stripe`.
   * @default undefined: a form cannot enable payment (F2 answers 400)
   */
  payments?: Payments;
  /**
   * Milliseconds the first attempt of a confirmation e-mail or a destination post may take
   * within S2; both run at once, so S2 waits at most this long for them. A failed first
   * attempt is retried from the outbox.
   * @default 5000
   */
  actionTimeoutMs?: number;
  /**
   * How confirmation e-mails are retried from the outbox.
   * @default { maxAttempts: 8, retryBaseMs: 1000, retryMaxDelayMs: 60000 }
   */
  mailRetry?: Partial<RetryPolicy>;
  /** How often the webhook outbox is read; 0 turns the delivery worker off. @default 1000 */
  webhookPollMs?: number;
  /**
   * Checks of the embedder's own that `GET /readyz` and `ready()` run beside the store's
   * and the blob store's, by the name `failed` lists when one throws or takes longer than
   * `readinessTimeoutMs` (docs/design.md §10).
   * @default {}
   */
  readinessChecks?: Record<string, () => Promise<unknown>>;
  /**
   * How long each readiness check may take before it counts as failed: below the 1 s
   * a Kubernetes probe waits by default.
   * @default 800
   */
  readinessTimeoutMs?: number;
  /**
   * Milliseconds an instance's claim on a delivery (webhook, e-mail, destination post) lasts
   * unless renewed. The instance renews it every third of this while it holds the delivery,
   * during an attempt and between attempts, so it runs out only when the instance dies or
   * stalls: another instance then takes the delivery over within this long, and makes the
   * attempt it was making again (same `webhook-id`). Shorter: a dead instance's deliveries
   * resume sooner, for one store write per held delivery every third of it; too short for
   * the store's latency and event-loop pauses, and a live instance loses its claims and its
   * attempts are repeated. The instances' clocks must agree to well within it.
   * @default 30000 (30 s)
   */
  webhookLeaseMs?: number;
  /**
   * Deliveries (webhooks and retried actions) one instance makes at once. Each waits mostly
   * on its receiver, so a slow receiver holds a slot, not the process.
   * @default 64
   */
  webhookConcurrency?: number;
  /**
   * Enables the admin routes under `/api/admin`, authenticated by the `AdminSecret` header.
   * @default undefined (the admin routes answer 404)
   */
  adminSecret?: string;
  /**
   * The path the service is mounted under, e.g. `"/forms"`: every route, `/openapi.json`
   * included, answers under it (`/forms/api/form/…`) and any other path answers 404, save
   * the downloads of a blob store that serves its own `storageUrl` (fs).
   *
   * `fetch` routes on the URL it is given, so hand it the URL the client sent, prefix
   * included. Frameworks that strip a mount prefix need telling:
   * - Hono: `app.all("/forms/*", mount(service.fetch, { replaceRequest: false }))` with
   *   `mount` from `hono/mount` (by default it strips the prefix; `app.mount` is deprecated);
   * - Express through `@hono/node-server`'s `getRequestListener`:
   *   `app.all("/forms/*splat", listener)`; not `app.use("/forms", listener)`, which strips
   *   the prefix from `req.url`, the URL the bridge builds the request from;
   * - `Deno.serve`, `Bun.serve`, a proxy that keeps the path: the request as it comes.
   *
   * Links to files come from the blob store: give the fs store a `storageUrl` under the
   * same base (`https://example.com/forms/storage`) so that downloads reach the service too.
   * @default "" (the root)
   */
  basePath?: string;
  /**
   * Take the client address from the first `X-Forwarded-For` entry. Turn on only behind a
   * proxy you run, which sets that header itself.
   * @default false
   */
  trustProxy?: boolean;
  /**
   * Maps a client address to its two-letter country code; "" where unknown.
   * @default () => ""
   */
  countryOf?: (address: string) => string | Promise<string>;
  /** The partner layer (P1–P5): customer login tokens and default customer quotas. */
  partners?: PartnerOptions;
  /** Bounds on requests. */
  limits?: Partial<Limits>;
  /**
   * How often the service removes attachments that no submission claimed within
   * `limits.attachmentGraceMs` (an upload is released at most this long after its grace
   * period), finishes deleting forms whose deletion a crash cut short, and deletes the
   * submissions past their form's retention. The first sweep runs this long after the start,
   * or 31 s when that is sooner (just past an erasure's lease). 0 turns the timers off (call
   * `sweepAttachments` yourself).
   * @default 600000 (10 minutes)
   */
  sweepIntervalMs?: number;
  /** The clock. @default () => new Date() */
  now?: () => Date;
  /**
   * Receives every unexpected error (answered as a bare 500), besides `logger.error`.
   * @default console.error, when no `logger` is given either
   */
  onError?: (error: unknown) => void;
  /**
   * Where log lines go: `pino()` or anything shaped like it (see {@link Logger}). It gets
   * one `info` line per request (`method`, route pattern, `status`, `ms`, `requestId`), a
   * `debug` line when a client cuts its request body short, and unexpected errors at
   * `error` with their stack. Lines hold no header value, body, query string or secret.
   * @default undefined: no request lines; unexpected errors go to `onError`
   */
  logger?: Logger;
  /**
   * Rate limits (429 `rate_limited` with `Retry-After` and `RateLimit-*` headers): per client
   * address over F5, S2, S3 and the hosted page, per credential over the restricted routes;
   * and failed authentications per client address and per claimed id (429 with
   * `Retry-After`). Counted in this instance's memory.
   * @default 300 and 3000 requests a minute; 10 and 10 failures a minute
   */
  rateLimits?: RateLimitOptions;
  /**
   * Keeps Prometheus metrics (docs/design.md §10), read by `service.metrics()`: requests by
   * route pattern, method and status with their latency, store calls by operation and
   * collection with their latency and conflicts, the outbox's depth and the age of its
   * oldest due entry, delivery attempts by kind and outcome, refused and rate-limited
   * requests, upload sizes, and the store's own figures where it has them (`Store.stats`:
   * lowdb's journal size and compactions). `true` keeps them in a registry of the
   * service's own; `{ registry }` declares them in a `prom-client` registry of yours
   * (one service per registry: the names would clash). Off, the service wraps nothing and
   * measures nothing.
   * @default false
   */
  metrics?: boolean | { registry: Registry };
}

/** Default bounds on requests. */
export const defaultLimits: Limits = {
  jsonBodyBytes: 1_000_000,
  entriesPerInsert: 1000,
  uploadBytes: 25 * 1024 * 1024,
  signedLinkSeconds: 15 * 60,
  attachmentGraceMs: 60 * 60 * 1000,
  unclaimedUploadBytes: 100 * 1024 * 1024,
  unclaimedUploadQuotaShare: 0.75,
  unclaimedUploadBytesPerAddress: 25 * 1024 * 1024,
  auditRetentionDays: 400,
};

/**
 * The limits of `given` over {@link defaultLimits}, checked; without its own
 * `unclaimedUploadBytesPerAddress`, a quarter of `unclaimedUploadBytes` or `uploadBytes`,
 * whichever is larger, so that a service that raises either keeps them in proportion.
 * @throws {TypeError} as {@link checkedLimits} says.
 */
export function limitsOf(given: Partial<Limits> = {}): Limits {
  const limits = { ...defaultLimits, ...given };
  if (given.unclaimedUploadBytesPerAddress === undefined) {
    const quarter = Math.floor(limits.unclaimedUploadBytes / 4);
    limits.unclaimedUploadBytesPerAddress = Math.max(limits.uploadBytes, quarter);
  }
  return checkedLimits(limits);
}

/**
 * @throws {TypeError} when `uploadBytes` exceeds `unclaimedUploadBytes` or
 *   `unclaimedUploadBytesPerAddress`: an upload holds its largest size against the form's
 *   unclaimed bytes, and its address's, while it streams, so such an upload could never be
 *   accepted; and when `auditRetentionDays` is not a whole number of at least 1.
 */
export function checkedLimits(limits: Limits): Limits {
  if (!Number.isSafeInteger(limits.auditRetentionDays) || limits.auditRetentionDays < 1) {
    throw new TypeError(
      `limits.auditRetentionDays must be a whole number of at least 1, not ${limits.auditRetentionDays}`,
    );
  }
  if (limits.uploadBytes > limits.unclaimedUploadBytes) {
    throw new TypeError(
      `limits.uploadBytes (${limits.uploadBytes}) exceeds limits.unclaimedUploadBytes (${limits.unclaimedUploadBytes}): no upload that large could be accepted`,
    );
  }
  if (limits.uploadBytes > limits.unclaimedUploadBytesPerAddress) {
    throw new TypeError(
      `limits.uploadBytes (${limits.uploadBytes}) exceeds limits.unclaimedUploadBytesPerAddress (${limits.unclaimedUploadBytesPerAddress}): no upload that large could be accepted`,
    );
  }
  return limits;
}

/**
 * `basePath` without its trailing slash; "" for the root.
 * @throws {TypeError} when it is not a path of segments of letters, digits and `_-.~%`: the
 *   router reads other characters (`:`, `*`, `(`, …) as patterns.
 */
export function normaliseBasePath(basePath = ""): string {
  const trimmed = basePath.replace(/\/+$/, "");
  if (trimmed === "") return "";
  if (!/^(\/[\w.~%-]+)+$/.test(trimmed)) {
    throw new TypeError(
      `basePath must be a path such as "/forms", not ${JSON.stringify(basePath)}`,
    );
  }
  return trimmed;
}
