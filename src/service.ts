/**
 * The composition: `createFormService` wires the ports of its options into the domain's
 * context, starts the background work (the webhook worker, the sweeps, tasks that outlive
 * their request) and hands requests to the request server (request-server.ts); `close`
 * stops them in order.
 */
import { type AdminApi, createAdminApi } from "./admin.ts";
import { resolvePartnerSettings } from "./domain/accounts/index.ts";
import { sweepAttachments } from "./domain/attachments/index.ts";
import { sweepAuditEntries } from "./domain/audit/index.ts";
import type { Context } from "./domain/context.ts";
import {
  erasureLeaseMs,
  finishFormDeletions,
  resumeErasures,
  sweepIdempotencyKeys,
  sweepPayments,
  sweepRetention,
} from "./domain/flows/index.ts";
import { sweepUsedSolutions } from "./domain/settings/index.ts";
import { startWebhookWorker } from "./domain/webhooks/index.ts";
import { trackInFlight } from "./http/in-flight.ts";
import { requestIdOf, withRequestId } from "./http/request-id.ts";
import { createRequestLog, unknownRoute } from "./http/request-log.ts";
import { type WatchedPorts, watchedPorts } from "./instrumented-ports.ts";
import { ServiceError } from "./kernel/errors.ts";
import { measureRequest } from "./metrics/request-metrics.ts";
import type { MetricsText } from "./metrics/service-metrics.ts";
import { createProbes, type Readiness } from "./probes.ts";
import { type ConnectionInfo, requestServer } from "./request-server.ts";
import { failureResponse } from "./routes/router.ts";
import { type FormServiceOptions, limitsOf, normaliseBasePath } from "./service-options.ts";
import { traceRequest } from "./traces/request-spans.ts";
import { serviceTracer } from "./traces/tracer.ts";

/** A running form service. */
export interface FormService {
  /** Serves one request of the interface. */
  fetch(request: Request, connection?: ConnectionInfo): Promise<Response>;
  /** The programmatic admin API. */
  admin: AdminApi;
  /**
   * Finishes deleting forms whose deletion a crash cut short (a minute old at least),
   * removes idempotency keys past their 24 hours and audit entries past
   * `limits.auditRetentionDays`, deletes the submissions past their form's retention
   * (`securitysettings.submission_retention_days`), then removes the attachments whose grace
   * period is over and that no submission holds.
   * @returns how many attachments it removed.
   */
  sweepAttachments(): Promise<number>;
  /**
   * Deletes the submissions past their form's retention, as the sweep does (the part of
   * `sweepAttachments` that does it), for an embedder that runs its own schedule.
   * @returns how many submissions it deleted.
   */
  sweepRetention(): Promise<number>;
  /**
   * Whether the service can serve now, as `GET /readyz` answers it: the store and the blob
   * store answer a cheap read within `readinessTimeoutMs`, the webhook worker runs (unless
   * turned off), and every one of `readinessChecks` passes; `stopping` once `close` began.
   */
  ready(): Promise<Readiness>;
  /**
   * The service's Prometheus metrics (docs/design.md §10), in the text exposition format:
   * serve `body` with `contentType` as the answer to a scrape, on a port of its own.
   * @throws {TypeError} (a rejection) when the service was created without `metrics`.
   */
  metrics(): Promise<MetricsText>;
  /**
   * Stops the service: `/readyz` answers 503 at once and every later request 503
   * `service_unavailable` (`/healthz` still 200); it waits for the requests in flight to
   * finish and for the e-mails they left sending, stops the webhook worker (handing its
   * deliveries back), then closes the store. When `options.signal` aborts first, it stops
   * waiting: the requests still running then are listed in the result, given a second to
   * end (the host cuts their connections), and the store is closed all the same.
   */
  close(options?: CloseOptions): Promise<CloseReport>;
}

/** How a stop may be cut short. */
export interface CloseOptions {
  /** Aborted: stop waiting for the requests, tasks and deliveries still running. */
  signal?: AbortSignal;
}

/** What a stop cut off. */
export interface CloseReport {
  /** The requests still running when `signal` aborted: method and route pattern. */
  cutOff: { method: string; route: string }[];
}

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
  // Spans go to the provider the embedder installed, or nowhere (docs/design.md §10).
  const tracer = serviceTracer();
  const { ports, metrics } = watchedPorts(options, tracer);
  const { sender } = ports;
  const ctx = contextOf(options, ports, keepRunning, () => worker?.nudge());
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
  const serve = requestServer(ctx, options, basePath, admin, log, metrics);
  let stopping = false;
  let workerStopped = false;
  const probes = createProbes(
    {
      ctx,
      workerRuns: worker ? () => !workerStopped : undefined,
      stopping: () => stopping,
      checks: options.readinessChecks ?? {},
      timeoutMs: options.readinessTimeoutMs ?? 800,
    },
    basePath,
  );
  const sweeps = startSweeps(ctx, options.sweepIntervalMs ?? 600_000, onError);
  const requests = trackInFlight();
  const routeOf = (request: Request) => {
    const route = probes.routeOf(request) ?? serve.routeOf(request);
    return route === unknownRoute ? null : route;
  };
  const refusal = new ServiceError(
    "service_unavailable",
    "The service is stopping; nothing was changed. Try again shortly",
  );
  const refuse = (request: Request) => {
    metrics?.refused(refusal.code);
    return withRequestId(failureResponse(refusal, request, basePath), requestIdOf(request));
  };
  const answer = (request: Request, connection: ConnectionInfo | undefined) =>
    traceRequest(
      tracer,
      request,
      routeOf,
      () =>
        probes.answer(request) ??
        requests.admit(
          request,
          () => serve.answer(request, connection),
          () => refuse(request),
        ),
    );
  return {
    fetch: metrics
      ? (request, connection) =>
          measureRequest(metrics, request, routeOf, () => answer(request, connection))
      : answer,
    admin,
    sweepAttachments: sweeps.sweep,
    sweepRetention: () => sweepRetention(ctx),
    ready: probes.ready,
    metrics: () =>
      metrics
        ? metrics.scrape()
        : Promise.reject(new TypeError("metrics are off: createFormService({ metrics: true })")),
    async close(closeOptions = {}) {
      stopping = true;
      const { signal } = closeOptions;
      const cutOff: CloseReport["cutOff"] = [];
      const aborted = untilAborted(signal, () => {
        for (const request of requests.running())
          cutOff.push({ method: request.method, route: serve.routeOf(request) });
      });
      // The requests in flight first: they write to the store and may queue deliveries.
      const sweeping = sweeps.stop();
      const drained = requests.drain();
      await Promise.race([drained, aborted]);
      // Cut off: their connections go, so most end at once; a second more at the most.
      if (signal?.aborted) await Promise.race([drained, delay(cutOffGraceMs)]);
      await Promise.race([Promise.allSettled([...running, sweeping]), aborted]);
      workerStopped = true;
      await Promise.race([worker?.stop(), aborted]);
      await ctx.store.close();
      return { cutOff };
    },
  };
}

/** How long a stop whose signal aborted still waits for the requests it cut off. */
const cutOffGraceMs = 1000;

/** Resolves when `signal` aborts (never without one), after calling `onAbort`. */
function untilAborted(signal: AbortSignal | undefined, onAbort: () => void): Promise<void> {
  return new Promise((resolve) => {
    if (!signal) return;
    const abort = () => {
      onAbort();
      resolve();
    };
    if (signal.aborted) abort();
    else signal.addEventListener("abort", abort, { once: true });
  });
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** The domain's context: the ports (as watched) and settings of `options`, with defaults. */
function contextOf(
  options: FormServiceOptions,
  ports: WatchedPorts,
  keepRunning: (task: Promise<unknown>) => void,
  nudgeWebhooks: () => void,
): Context {
  return {
    store: ports.store,
    blobs: ports.blobs,
    webhookSender: ports.sender,
    mailer: ports.mailer,
    payments: options.payments,
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
    limits: limitsOf(options.limits),
    destinations: ports.destinations,
    nudgeWebhooks,
    keepRunning,
  };
}

/**
 * The sweep (forms whose deletion a crash cut short are finished first: their files go with
 * them; then erasures by respondent whose lease ran out), run every `intervalMs` (never when
 * 0), one at a time, and first {@link firstSweepMs} after the start at the latest, so that
 * submissions past their retention go soon after a start, and an erasure a crash cut short
 * is taken up once its lease has run out (docs/design.md §6, §15); payments still pending
 * past their checkout's expiry are asked after last (§26).
 * @returns the sweep, and a stop that ends the timers and waits for the sweep running.
 */
function startSweeps(ctx: Context, intervalMs: number, onError: (error: unknown) => void) {
  const sweep = async () => {
    await finishFormDeletions(ctx);
    await resumeErasures(ctx);
    await sweepUsedSolutions(ctx);
    await sweepIdempotencyKeys(ctx);
    await sweepRetention(ctx);
    await sweepAuditEntries(ctx);
    const removed = await sweepAttachments(ctx);
    // Last: a payment provider that cannot be reached fails this part alone (§26).
    await sweepPayments(ctx);
    return removed;
  };
  let sweeping: Promise<void> | undefined;
  const run = () => {
    sweeping ??= sweep()
      .then(() => {}, onError)
      .finally(() => {
        sweeping = undefined;
      });
  };
  const first =
    intervalMs > 0 ? setTimeout(run, Math.min(intervalMs, firstSweepMs)).unref() : undefined;
  const timer = intervalMs > 0 ? setInterval(run, intervalMs).unref() : undefined;
  return {
    sweep,
    stop: async () => {
      clearTimeout(first);
      clearInterval(timer);
      await sweeping;
    },
  };
}

/**
 * The longest wait from the start to the first sweep: just past an erasure's lease, so that
 * the first sweep takes up the erasure a crash cut short (its lease ran out by then).
 */
const firstSweepMs = erasureLeaseMs + 1000;
