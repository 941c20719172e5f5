/**
 * The request server: what `FormService.fetch` runs for each request once the service is
 * composed. A download that the blob store serves itself goes first; every other request
 * gets its client address and id and goes to the router; each answer is logged and carries
 * its request id.
 */
import type { AdminApi } from "./admin.ts";
import type { Context } from "./domain/context.ts";
import { asServiceError } from "./http/port-failures.ts";
import { createRateLimits, RateLimitedError } from "./http/rate-limits.ts";
import { requestIdOf, withRequestId } from "./http/request-id.ts";
import { downloadRoute, type RequestLog, unknownRoute } from "./http/request-log.ts";
import type { ServiceMetrics } from "./metrics/service-metrics.ts";
import { StoreUnavailableError } from "./ports/adapter-errors.ts";
import type { RouteRequest } from "./routes/route-request.ts";
import { routePatternOf } from "./routes/route-table.ts";
import { createRouter, failureResponse } from "./routes/router.ts";
import type { FormServiceOptions } from "./service-options.ts";

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

/**
 * Answers one request (`answer`): a download the blob store serves itself, or the router's
 * answer.
 */
export function requestServer(
  ctx: Context,
  options: Pick<FormServiceOptions, "adminSecret" | "rateLimits" | "trustProxy">,
  basePath: string,
  admin: AdminApi,
  log: RequestLog,
  metrics?: ServiceMetrics,
) {
  const router = createRouter({
    admin,
    adminSecret: options.adminSecret,
    basePath,
    rateLimits: createRateLimits(options.rateLimits, () => ctx.now().getTime()),
    onError: (error, request) => log.unexpected(error, request.requestId),
    onUnavailable: (cause, request) => log.unavailable(cause, request.requestId),
    onBodyAborted: (request) =>
      log.bodyAborted({
        requestId: request.requestId,
        method: request.method,
        route: routePatternOf(router.routes, request) ?? unknownRoute,
      }),
    onFailure:
      metrics &&
      ((error) =>
        metrics.refused(error.code, error instanceof RateLimitedError ? error.limit : undefined)),
  });
  const trustProxy = options.trustProxy ?? false;
  const answer = (request: Request, connection: ConnectionInfo | undefined) => {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const routed = request as RouteRequest;
    const answered = (response: Response, download: boolean) => {
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
    // Without `async` layers: each would add a promise and turns to every request (hot path).
    const route = () => {
      routed.clientAddress = clientAddressOf(request, connection, trustProxy);
      routed.hostBody = connection?.body;
      routed.requestId = requestId;
      return router.fetch(routed, ctx).then((response) => answered(response as Response, false));
    };
    // Blob stores the service serves itself (fs) answer downloads under `{storage_url}`.
    // Most blob stores serve nothing themselves: then no request waits a turn for nothing.
    if (!ctx.blobs?.fetch) return route();
    return serveDownload(ctx, request, basePath, log, requestId).then((download) => {
      if (!download) return route();
      // Named for the stop report and the request's span (routeOf) as for the log line.
      routed.route = downloadRoute;
      return answered(download, true);
    });
  };
  return {
    answer,
    /** The route pattern of a request `answer` was given, for a stop that cuts it off. */
    routeOf: (request: Request) =>
      routePatternOf(router.routes, request as RouteRequest) ?? unknownRoute,
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
    if (error instanceof StoreUnavailableError) log.unavailable(error, requestId);
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
