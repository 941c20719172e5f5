import { Router } from "itty-router";
import type { AdminApi } from "../admin.ts";
import { authenticate } from "../auth/authenticate.ts";
import type { Context } from "../context.ts";
import { errorEnvelope, NotFoundError, ServiceError, ValidationError } from "../errors.ts";
import { StoreConflictError, StoreContinuationError } from "../ports/store.ts";
import { adminRoutes } from "../routes/admin.ts";
import { datalistRoutes } from "../routes/datalists.ts";
import { formUserRoutes } from "../routes/form-users.ts";
import { formRoutes } from "../routes/forms.ts";
import { submissionRoutes } from "../routes/submissions.ts";
import type { RouteRequest, ServiceRouter } from "./route-request.ts";

/** What the router needs besides the context. */
export interface RouterOptions {
  admin: AdminApi;
  adminSecret: string | undefined;
  /** Called with every error that is not a deliberate answer; it becomes a bare 500. */
  onError(error: unknown): void;
}

/**
 * The service's one router: authenticate first, then the routes of each interface section;
 * handlers return plain objects that become JSON, and errors become the failure envelope.
 */
export function createRouter(options: RouterOptions): ServiceRouter {
  const router: ServiceRouter = Router<RouteRequest, [Context]>({
    before: [
      async (request: RouteRequest, ctx: Context) => {
        request.caller = await authenticate(ctx, request.headers);
      },
    ],
    catch: (error: unknown, request: Request) => {
      const known = asServiceError(error);
      if (!known) options.onError(error);
      return errorResponse(known ?? error, isSubmissionPost(request));
    },
    finally: [(result: unknown) => (result instanceof Response ? result : json(200, result))],
  });
  formRoutes(router);
  formUserRoutes(router);
  datalistRoutes(router);
  submissionRoutes(router);
  adminRoutes(router, options.admin, options.adminSecret);
  router.all("*", () => {
    throw new NotFoundError("No such endpoint");
  });
  return router;
}

/** Errors of the ports that mean something to a client. */
function asServiceError(error: unknown): ServiceError | null {
  if (error instanceof ServiceError) return error;
  if (error instanceof StoreContinuationError) {
    return new ValidationError("The continuation token is not valid", [
      { path: "continuationToken", message: "is not a token this service issued" },
    ]);
  }
  if (error instanceof StoreConflictError) {
    return new ServiceError("conflict", "The record was changed by another request; try again");
  }
  return null;
}

function errorResponse(error: unknown, withActionSuccessful: boolean): Response {
  const { status, body } = errorEnvelope(error);
  // S2 reports its outcome in camel case as well, failures included (design.md §8).
  return json(status, withActionSuccessful ? { ...body, actionSuccessful: false } : body);
}

function isSubmissionPost(request: Request): boolean {
  return (
    request.method === "POST" &&
    /^\/api\/form\/[^/]+\/submission\/?$/.test(new URL(request.url).pathname)
  );
}

function json(status: number, body: unknown): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json; charset=utf-8" },
  });
}
