import { type AdminApi, createAdminApi } from "./admin.ts";
import { type PartnerOptions, resolvePartnerSettings } from "./domain/accounts/index.ts";
import { createSettledUploads, sweepAttachments } from "./domain/attachments/index.ts";
import type { Context, Limits } from "./domain/context.ts";
import { createFormSnapshots, finishFormDeletions } from "./domain/forms/index.ts";
import { startWebhookWorker } from "./domain/webhooks/index.ts";
import { trackInFlight } from "./http/in-flight.ts";
import { asServiceError } from "./http/port-failures.ts";
import { createRateLimits, type RateLimitOptions } from "./http/rate-limits.ts";
import { requestIdOf, withRequestId } from "./http/request-id.ts";
import {
  createRequestLog,
  downloadRoute,
  type RequestLog,
  unknownRoute,
} from "./http/request-log.ts";
import { ServiceError } from "./kernel/errors.ts";
import type { BlobStore } from "./ports/blob-store.ts";
import type { Logger } from "./ports/logger.ts";
import type { Mailer } from "./ports/mailer.ts";
import type { Store } from "./ports/store.ts";
import type { RetryPolicy } from "./ports/webhook-retries.ts";
import type { WebhookSender } from "./ports/webhook-sender.ts";
import type { RouteRequest } from "./routes/route-request.ts";
import { routePatternOf } from "./routes/route-table.ts";
import { createRouter, failureResponse } from "./routes/router.ts";
import { createNetworkDestinations } from "./webhooks/destinations.ts";
import { createHttpWebhookSender } from "./webhooks/http-sender.ts";

/** Options of {@link createFormService}. */
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
   * Sends the forms' confirmation e-mails (design.md §11), e.g. `createSmtpMailer(…)` from
   * `formwork/adapters/smtp`.
   * @default undefined: no e-mail can be sent; each one a form calls for counts as failed
   */
  mailer?: Mailer;
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
   * `limits.attachmentGraceMs`, and finishes deleting forms whose deletion a crash cut
   * short; 0 turns the timer off (call `sweepAttachments` yourself).
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
   * address over F5, S2, S3 and the hosted page, per credential over the restricted routes.
   * Counted in this instance's memory. @default 300 and 3000 requests a minute
   */
  rateLimits?: RateLimitOptions;
}

/** What the embedder knows about a request beyond the `Request`: its connection, its body. */
export interface ConnectionInfo {
  /** The peer's IP address. */
  clientAddress?: string;
  /**
   * The request's body as the host received it, unread: the `IncomingMessage` of
   * `node:http` (`env.incoming` of `@hono/node-server`, Express's `req`), or any async
   * iterable of bytes. Uploads (S3) then parse it directly instead of `request.body`, which
   * they never touch: no conversion between Node and web streams (a bridge's
   * `request.body` copies every chunk). Other requests read the `Request` as before. After
   * an upload is refused midway, the rest of a Node stream is read and dropped so that the
   * answer reaches the client; the host's timeouts bound it.
   * @default undefined: uploads read `request.body`
   */
  body?: AsyncIterable<Uint8Array>;
}

/** A running form service. */
export interface FormService {
  /** Serves one request of the interface. */
  fetch(request: Request, connection?: ConnectionInfo): Promise<Response>;
  /** The programmatic admin API. */
  admin: AdminApi;
  /**
   * Finishes deleting forms whose deletion a crash cut short (a minute old at least), then
   * removes the attachments whose grace period is over and that no submission holds.
   * @returns how many attachments it removed.
   */
  sweepAttachments(): Promise<number>;
  /**
   * Stops the service: answers every later request 503 `service_unavailable`, waits for the
   * requests in flight to finish and for the e-mails they left sending, stops the webhook
   * worker (handing its deliveries back), then closes the store.
   */
  close(): Promise<void>;
}

/** Default bounds on requests. */
export const defaultLimits: Limits = {
  jsonBodyBytes: 1_000_000,
  entriesPerInsert: 1000,
  uploadBytes: 25 * 1024 * 1024,
  signedLinkSeconds: 15 * 60,
  attachmentGraceMs: 24 * 60 * 60 * 1000,
  unclaimedUploadBytes: 100 * 1024 * 1024,
  unclaimedUploadQuotaShare: 0.75,
};

/**
 * Creates the form service over the given ports. The result's `fetch` takes a web
 * `Request` and answers a `Response`, so it mounts in any framework.
 */
export function createFormService(options: FormServiceOptions): FormService {
  const basePath = normaliseBasePath(options.basePath);
  const log = createRequestLog(options.logger, options.onError);
  const onError = (error: unknown) => log.unexpected(error);
  // Tasks that outlive their request (Context.keepRunning); `close` waits for them.
  const running = new Set<Promise<void>>();
  const keepRunning = (task: Promise<unknown>) => {
    const kept = task.then(() => {}, onError).finally(() => running.delete(kept));
    running.add(kept);
  };
  const sender =
    options.webhookSender ??
    createHttpWebhookSender({
      allowPrivateDestinations: options.allowPrivateWebhookDestinations ?? false,
    });
  const ctx = contextOf(options, sender, keepRunning, () => worker?.nudge());
  const pollMs = options.webhookPollMs ?? 1000;
  const worker =
    pollMs > 0
      ? startWebhookWorker(ctx, {
          sender,
          pollMs,
          leaseMs: options.webhookLeaseMs ?? 30_000,
          maxConcurrent: options.webhookConcurrency ?? 64,
          onError,
        })
      : undefined;
  const admin = createAdminApi(ctx);
  const serve = requestServer(ctx, options, basePath, admin, log);
  const sweeps = startSweeps(ctx, options.sweepIntervalMs ?? 600_000, onError);
  const requests = trackInFlight();
  const stopping = new ServiceError(
    "service_unavailable",
    "The service is stopping; nothing was changed. Try again shortly",
  );
  return {
    fetch: (request, connection) =>
      requests.admit(
        () => serve(request, connection),
        () => withRequestId(failureResponse(stopping, request, basePath), requestIdOf(request)),
      ),
    admin,
    sweepAttachments: sweeps.sweep,
    async close() {
      // The requests in flight first: they write to the store and may queue deliveries.
      const sweeping = sweeps.stop();
      await requests.drain();
      await Promise.allSettled(running);
      await sweeping;
      await worker?.stop();
      await ctx.store.close();
    },
  };
}

/** The domain's context: the ports and settings of `options`, with their defaults. */
function contextOf(
  options: FormServiceOptions,
  webhookSender: WebhookSender,
  keepRunning: (task: Promise<unknown>) => void,
  nudgeWebhooks: () => void,
): Context {
  const allowPrivateWebhookDestinations = options.allowPrivateWebhookDestinations ?? false;
  return {
    store: options.store,
    blobs: options.blobs,
    webhookSender,
    mailer: options.mailer,
    actions: {
      attemptMs: options.actionTimeoutMs ?? 5000,
      mailRetry: {
        maxAttempts: 8,
        retryBaseMs: 1000,
        retryMaxDelayMs: 60_000,
        ...options.mailRetry,
      },
    },
    now: options.now ?? (() => new Date()),
    countryOf: options.countryOf ?? (() => ""),
    partners: resolvePartnerSettings(options.partners),
    limits: checkedLimits({ ...defaultLimits, ...options.limits }),
    destinations: createNetworkDestinations(allowPrivateWebhookDestinations),
    nudgeWebhooks,
    keepRunning,
    formSnapshots: createFormSnapshots(),
    settledUploads: createSettledUploads(),
  };
}

/**
 * The sweep (forms whose deletion a crash cut short are finished first: their files go with
 * them), run every `intervalMs` (never when 0), one at a time.
 * @returns the sweep, and a stop that ends the timer and waits for the sweep running.
 */
function startSweeps(ctx: Context, intervalMs: number, onError: (error: unknown) => void) {
  const sweep = async () => {
    await finishFormDeletions(ctx);
    return sweepAttachments(ctx);
  };
  let sweeping: Promise<void> | undefined;
  const timer =
    intervalMs > 0
      ? setInterval(() => {
          sweeping ??= sweep()
            .then(() => {}, onError)
            .finally(() => {
              sweeping = undefined;
            });
        }, intervalMs).unref()
      : undefined;
  return {
    sweep,
    stop: async () => {
      clearInterval(timer);
      await sweeping;
    },
  };
}

/** Answers one request: a download the blob store serves itself, or the router's answer. */
function requestServer(
  ctx: Context,
  options: FormServiceOptions,
  basePath: string,
  admin: AdminApi,
  log: RequestLog,
) {
  const router = createRouter({
    admin,
    adminSecret: options.adminSecret,
    basePath,
    rateLimits: createRateLimits(options.rateLimits),
    onError: (error, request) => log.unexpected(error, request.requestId),
    onBodyAborted: (request) =>
      log.bodyAborted({
        requestId: request.requestId,
        method: request.method,
        route: routePatternOf(router.routes, request) ?? unknownRoute,
      }),
  });
  const trustProxy = options.trustProxy ?? false;
  return async (request: Request, connection: ConnectionInfo | undefined) => {
    const started = performance.now();
    const requestId = requestIdOf(request);
    // Blob stores the service serves itself (fs) answer downloads under `{storage_url}`.
    // Most blob stores serve nothing themselves: then no request waits a turn for nothing.
    const download = ctx.blobs?.fetch
      ? await serveDownload(ctx, request, basePath, log, requestId)
      : null;
    const routed = request as RouteRequest;
    let response = download;
    if (!response) {
      routed.clientAddress = clientAddressOf(request, connection, trustProxy);
      routed.hostBody = connection?.body;
      routed.requestId = requestId;
      response = (await router.fetch(routed, ctx)) as Response;
    }
    if (log.logsRequests) {
      // Looked up only for a log line: it reads the route table.
      const route = download
        ? downloadRoute
        : (routePatternOf(router.routes, routed) ?? unknownRoute);
      const ms = Math.round((performance.now() - started) * 100) / 100;
      log.answered({ requestId, method: request.method, route, status: response.status, ms });
    }
    return withRequestId(response, requestId);
  };
}

/**
 * The blob store's own answer to a download under `{storage_url}`, or `null`; a refusal or
 * a failure of the store becomes the failure envelope, as never sniffed or cached as the
 * files themselves.
 */
async function serveDownload(
  ctx: Context,
  request: Request,
  basePath: string,
  log: RequestLog,
  requestId: string,
) {
  try {
    return (await ctx.blobs?.fetch?.(request)) ?? null;
  } catch (error) {
    const known = asServiceError(error);
    if (!known) log.unexpected(error, requestId);
    const response = failureResponse(known ?? error, request, basePath);
    response.headers.set("x-content-type-options", "nosniff");
    response.headers.set("cache-control", "private, no-store");
    return response;
  }
}

function clientAddressOf(
  request: Request,
  connection: ConnectionInfo | undefined,
  trustProxy: boolean,
) {
  const forwarded = trustProxy ? request.headers.get("x-forwarded-for")?.split(",")[0]?.trim() : "";
  const address = forwarded || connection?.clientAddress || "";
  // IPv4 peers of a dual-stack socket show up as ::ffff:a.b.c.d.
  return address.startsWith("::ffff:") && address.includes(".") ? address.slice(7) : address;
}

/**
 * @throws {TypeError} when `uploadBytes` exceeds `unclaimedUploadBytes`: an upload holds its
 *   largest size against the form's unclaimed bytes while it streams, so such an upload could
 *   never be accepted.
 */
function checkedLimits(limits: Limits): Limits {
  if (limits.uploadBytes > limits.unclaimedUploadBytes) {
    throw new TypeError(
      `limits.uploadBytes (${limits.uploadBytes}) exceeds limits.unclaimedUploadBytes (${limits.unclaimedUploadBytes}): no upload that large could be accepted`,
    );
  }
  return limits;
}

/**
 * `basePath` without its trailing slash; "" for the root.
 * @throws {TypeError} when it is not a path of segments of letters, digits and `_-.~%`: the
 *   router reads other characters (`:`, `*`, `(`, …) as patterns.
 */
function normaliseBasePath(basePath = ""): string {
  const trimmed = basePath.replace(/\/+$/, "");
  if (trimmed === "") return "";
  if (!/^(\/[\w.~%-]+)+$/.test(trimmed)) {
    throw new TypeError(
      `basePath must be a path such as "/forms", not ${JSON.stringify(basePath)}`,
    );
  }
  return trimmed;
}
