import { Router } from "itty-router";
import type { AdminApi } from "../admin.ts";
import { authenticate, carriesCredentials } from "../auth/authenticate.ts";
import { authenticateCustomer } from "../auth/customer-jwt.ts";
import { partnerIdOf } from "../domain/accounts/index.ts";
import type { Context } from "../domain/context.ts";
import type { FailedAuthentications } from "../http/failed-authentications.ts";
import { asServiceError } from "../http/port-failures.ts";
import { RateLimitedError, type RateLimits } from "../http/rate-limits.ts";
import { jsonWithRequestId } from "../http/request-id.ts";
import {
  BodyAbortedError,
  MethodNotAllowedError,
  NotFoundError,
  type ServiceError,
  UnavailableError,
} from "../kernel/errors.ts";
import { StoreUnavailableError } from "../ports/adapter-errors.ts";
import { adminGuard, adminPaths } from "./admin.ts";
import { errorEnvelope } from "./error-envelope.ts";
import { lazyOpenApiDocument } from "./openapi.ts";
import { serveOperations } from "./operation.ts";
import { operations } from "./operations.ts";
import { type RateLimitStage, rateLimitStage } from "./rate-limit-stage.ts";
import type { RouteRequest, ServiceRouter } from "./route-request.ts";
import { routesOfPath } from "./route-table.ts";

/** What the router needs besides the context. */
export interface RouterOptions {
  admin: AdminApi;
  adminSecret: string | undefined;
  /** The path every route answers under (`""` or e.g. `/forms`, no trailing slash). */
  basePath: string;
  /** Called with every error that is not a deliberate answer; it becomes a bare 500. */
  onError(error: unknown, request: RouteRequest): void;
  /** The allowances requests draw on. */
  rateLimits: RateLimits;
  /** Called when the client cut the request body short; it is answered 400. */
  onBodyAborted?(request: RouteRequest): void;
  /** Called with a port's failure answered 503 (its `cause` says why: a file, a timeout). */
  onUnavailable?(cause: unknown, request: RouteRequest): void;
  /** Called with every deliberate failure answered with its envelope (for the metrics). */
  onFailure?(error: ServiceError, request: RouteRequest): void;
}

/**
 * The service's one router: authenticate first, then the operations of each interface
 * section (`operations.ts`); handlers return plain objects that become JSON, and errors
 * become the failure envelope.
 */
export function createRouter(options: RouterOptions): ServiceRouter {
  const failures = options.rateLimits.failedAuthentications;
  const countRequest = rateLimitStage(options.rateLimits, options.basePath, operations);
  const router: ServiceRouter = Router<RouteRequest, [Context]>({
    base: options.basePath,
    before: [
      (request: RouteRequest, ctx: Context) => {
        if (carriesCredentials(request.headers))
          return identify(request, ctx, countRequest, failures);
        request.caller = null;
        return countRequest(request, ctx, undefined);
      },
    ],
    catch: (error: unknown, request: Request) => {
      const known = asServiceError(error);
      if (!known) options.onError(error, request as RouteRequest);
      else options.onFailure?.(known, request as RouteRequest);
      if (known instanceof BodyAbortedError) options.onBodyAborted?.(request as RouteRequest);
      if (error instanceof StoreUnavailableError) {
        options.onUnavailable?.(error, request as RouteRequest);
      }
      return failureResponse(known ?? error, request, options.basePath);
    },
    finally: [
      (result: unknown, request: RouteRequest) => {
        // No route answered: the path lies outside `basePath`, where the catch-all is not.
        if (result === undefined) throw new NotFoundError("No such endpoint");
        if (!(result instanceof Response)) {
          // Built with all its headers: the common answer touches no `Headers` object.
          return jsonWithRequestId(200, result, request.requestId, request.rateLimit);
        }
        for (const [name, value] of Object.entries(request.rateLimit ?? {}))
          result.headers.set(name, value);
        return result;
      },
    ],
  });
  // Every method of the admin API's paths, before their routes: without a configured secret
  // they answer 404, not 405. Any other path fails its pattern within a few characters.
  router.all(adminPaths, adminGuard(options.adminSecret, failures));
  serveOperations(router, operations, {
    admin: options.admin,
    openApiDocument: lazyOpenApiDocument(options.basePath, operations),
  });
  router.all("*", (request) => {
    // A path some route serves with other methods is a 405 naming them (docs/design.md §8).
    const known = routesOfPath(router.routes, request.method, new URL(request.url).pathname);
    if (known) throw new MethodNotAllowedError(known.methods);
    throw new NotFoundError("No such endpoint");
  });
  return router;
}

/** Authenticates a request that names credentials, then counts it against its rate limit. */
async function identify(
  request: RouteRequest,
  ctx: Context,
  countRequest: RateLimitStage,
  failures: FailedAuthentications,
) {
  // A customer login token (P2) acts as the customer on any route.
  const customer = await authenticateCustomer(ctx, request);
  if (customer) request.tokenPartnerId = partnerIdOf(customer.userId) ?? undefined;
  request.caller =
    customer ?? (await authenticate(ctx, request.headers, failures.of(request.clientAddress)));
  await countRequest(request, ctx, customer?.userId);
}

/**
 * The failure envelope of `error` as the answer to `request`; a submission post (S2) also
 * carries `actionSuccessful: false` (docs/design.md §8).
 */
export function failureResponse(error: unknown, request: Request, basePath: string): Response {
  const { status, body } = errorEnvelope(error);
  const withActionSuccessful = isSubmissionPost(request, basePath);
  const response = json(status, withActionSuccessful ? { ...body, actionSuccessful: false } : body);
  if (error instanceof MethodNotAllowedError) response.headers.set("allow", error.allow.join(", "));
  if (error instanceof RateLimitedError)
    for (const [name, value] of Object.entries(error.headers)) response.headers.set(name, value);
  if (error instanceof UnavailableError && error.retryAfterSeconds !== undefined)
    response.headers.set("retry-after", String(error.retryAfterSeconds));
  return response;
}

function isSubmissionPost(request: Request, basePath: string): boolean {
  const path = new URL(request.url).pathname;
  return (
    request.method === "POST" &&
    path.startsWith(basePath) &&
    /^\/api\/form\/[^/]+\/submission\/?$/.test(path.slice(basePath.length))
  );
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}
