/**
 * What the router's own route table (itty-router 5 keeps `router.routes` as
 * `[method, regex, handlers, pattern]`) says about a path: which methods it serves, and the
 * pattern a request matched. Read from the table, so every route added later is covered.
 *
 * Routes added with `all` (the catch-all, the admin guard) serve no method of their own:
 * they are left out, so that they neither make every path "known" nor count as a method.
 */
import type { RouteEntry } from "itty-router";
import type { RouteRequest } from "./route-request.ts";

/** The routes that know one path. */
export interface PathRoutes {
  /** The pattern of the route for the asked method, else of the first route of the path. */
  pattern: string;
  /** Every method the path is served with, sorted. */
  methods: string[];
}

/** The routes that serve `pathname`; `null` when none does. */
export function routesOfPath(
  routes: readonly RouteEntry[],
  method: string,
  pathname: string,
): PathRoutes | null {
  let pattern: string | undefined;
  let exact = false;
  const methods = new Set<string>();
  for (const [routeMethod, regex, , path = ""] of routes) {
    if (routeMethod === "ALL" || !regex.test(pathname)) continue;
    methods.add(routeMethod);
    if (!exact && (pattern === undefined || routeMethod === method)) {
      pattern = path;
      exact = routeMethod === method;
    }
  }
  return pattern === undefined ? null : { pattern, methods: [...methods].sort() };
}

/**
 * The route pattern a request was served by, such as `/api/form/:formId/submission`; never
 * the raw path, which holds ids. The router sets `request.route` when a route matches; when
 * none did, or only an `all` route did (the request failed before its route, e.g. at
 * authentication, or the method is not served), the table decides.
 * @returns `null` for a path no route knows.
 */
export function routePatternOf(
  routes: readonly RouteEntry[],
  request: RouteRequest,
): string | null {
  const matched = request.route as string | undefined;
  if (matched !== undefined && !isAllRoute(routes, matched)) return matched;
  return routesOfPath(routes, request.method, new URL(request.url).pathname)?.pattern ?? null;
}

function isAllRoute(routes: readonly RouteEntry[], pattern: string): boolean {
  return routes.some(([method, , , path]) => method === "ALL" && path === pattern);
}
