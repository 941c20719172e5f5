/**
 * One declaration per operation of the interface: what the OpenAPI document says of it
 * (`Operation`: method, path, schemas, who may call) and the handler that serves it. The
 * router registers the handlers of `operations.ts` and the document is built from the same
 * list, so the two cannot list different operations.
 */
import type { AdminApi } from "../admin.ts";
import type { Context } from "../domain/context.ts";
import type { Operation } from "../openapi/operation.ts";
import type { RouteRequest, ServiceRouter } from "./route-request.ts";

/** What a handler reaches besides its request and the context. */
export interface RouteEnv {
  /** The admin API, for the admin routes. */
  admin: AdminApi;
  /** The service's OpenAPI document, built on first call. */
  openApiDocument(): Promise<unknown>;
}

/**
 * Serves one operation: parse the request with the schemas, call the domain, return a plain
 * object (sent as JSON with status 200) or a `Response`.
 */
export type Handler = (request: RouteRequest, ctx: Context, env: RouteEnv) => unknown;

/** An operation of the interface as the router serves it and the document lists it. */
export interface RouteOperation extends Operation {
  /** Routes answer GET, POST and DELETE; only the blob store's downloads answer HEAD. */
  method: "get" | "post" | "delete";
  handler: Handler;
}

/** Registers every operation's handler on the router, in the order given. */
export function serveOperations(
  router: ServiceRouter,
  operations: readonly RouteOperation[],
  env: RouteEnv,
): void {
  for (const { method, path, handler } of operations) {
    router[method](path, (request, ctx) => handler(request, ctx, env));
  }
}
