/**
 * The router's rate-limit stage: which allowance a request draws on (see `rate-limits.ts`).
 * Kept apart from the limits themselves, whose options are public API, so that the public
 * declarations do not reach the router's request types.
 */
import { authenticatePartner } from "../auth/partner-credentials.ts";
import type { Context } from "../domain/context.ts";
import type { RateLimitKind, RateLimits } from "../http/rate-limits.ts";
import { pathOf, type RouteRequest } from "./route-request.ts";

/** F5, S2, S3 and the hosted page, relative to the base path. */
const publicRoute = /^\/(api\/form\/[^/]+(\/submission|\/submissionattachment)?|f\/[^/]+)\/?$/i;
const partnerRoute = /^\/api\/restricted\/partner\//i;

/**
 * The router's stage after authentication: counts the request against its allowance and
 * keeps the `RateLimit-*` headers on `request.rateLimit` for the answer. A public route
 * counts against the client address; any other route against the credential that
 * authenticated (for partner routes, the partner is authenticated here, once, and kept on
 * `request.partner`). Requests with neither are not counted.
 * @throws {RateLimitedError} past the allowance.
 */
export async function countRequest(
  limits: RateLimits,
  request: RouteRequest,
  ctx: Context,
  basePath: string,
  customerId: string | undefined,
): Promise<void> {
  const pathname = pathOf(request.url);
  if (!pathname.startsWith(basePath)) return;
  const path = pathname.slice(basePath.length);
  let kind: RateLimitKind = "credential";
  let key: string | undefined;
  if (publicRoute.test(path)) {
    kind = "public";
    key = request.clientAddress || undefined;
  } else if (customerId) key = `customer:${customerId}`;
  else if (request.caller) key = `token:${request.headers.get("TokenId")?.trim().toLowerCase()}`;
  else if (partnerRoute.test(path) && request.headers.has("PartnerId")) {
    request.partner = await authenticatePartner(ctx, request.headers);
    key = `partner:${request.partner.id}`;
  }
  if (key === undefined) return;
  request.rateLimit = (await limits.take(kind, key)) ?? undefined;
}
