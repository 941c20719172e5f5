/**
 * The router's rate-limit stage: which allowance a request draws on (see `rate-limits.ts`).
 * Kept apart from the limits themselves, whose options are public API, so that the public
 * declarations do not reach the router's request types.
 */
import { credentialHeader } from "../auth/credential-headers.ts";
import { authenticatePartner } from "../auth/partner-credentials.ts";
import type { Context } from "../domain/context.ts";
import type { RateLimitKind, RateLimits } from "../http/rate-limits.ts";
import type { Operation } from "../openapi/operation.ts";
import { pathOf, type RouteRequest } from "./route-request.ts";

/**
 * Partner credentials are read here on any path of the partner section, whatever else the
 * request carries, so that a partner draws on its own allowance (and a wrong secret is
 * refused and counted) whatever the path; the partner routes read `request.partner`.
 */
const partnerRoute = /^\/api\/restricted\/partner\//i;

/** The allowance an operation's requests draw on, which its `auth` decides. */
export function rateLimitKindOf(operation: Operation): RateLimitKind {
  return operation.auth === "public" ? "public" : "credential";
}

/**
 * The paths, relative to the base path, of the operations that count against the client's
 * address (F5, S2, S3, the challenge and the hosted page): whatever the method or the letter
 * case, with or without a trailing slash, as requests reach them before a route is matched.
 */
export function publicPathPattern(operations: readonly Operation[]): RegExp {
  const paths = operations
    .filter((operation) => rateLimitKindOf(operation) === "public")
    .map(({ path }) =>
      path
        .split(/(:\w+)/)
        .map((part) =>
          part.startsWith(":") ? "[^/]+" : part.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"),
        )
        .join(""),
    );
  return new RegExp(`^(?:${[...new Set(paths)].join("|")})/?$`, "i");
}

/** Counts a request; `customerId` when a customer login token authenticated it. */
export type RateLimitStage = (
  request: RouteRequest,
  ctx: Context,
  customerId: string | undefined,
) => Promise<void>;

/**
 * The router's stage after authentication: counts the request against its allowance and
 * keeps the `RateLimit-*` headers on `request.rateLimit` for the answer. A request to a
 * public operation's path counts against the client address; any other against the
 * credential that authenticated (for partner routes, the partner is authenticated here,
 * once, and kept on `request.partner`; its wrong secrets are counted as failed
 * authentications). Requests with neither are not counted.
 * @throws {RateLimitedError} past the allowance.
 */
export function rateLimitStage(
  limits: RateLimits,
  basePath: string,
  operations: readonly Operation[],
): RateLimitStage {
  const publicRoute = publicPathPattern(operations);
  return async (request, ctx, customerId) => {
    const pathname = pathOf(request.url);
    if (!pathname.startsWith(basePath)) return;
    const path = pathname.slice(basePath.length);
    let kind: RateLimitKind = "credential";
    let key: string | undefined;
    if (partnerRoute.test(path) && carriesPartnerCredentials(request.headers)) {
      const guard = limits.failedAuthentications.of(request.clientAddress);
      request.partner = await authenticatePartner(ctx, request.headers, guard);
    }
    if (publicRoute.test(path)) {
      kind = "public";
      key = request.clientAddress || undefined;
    } else if (customerId) key = `customer:${customerId}`;
    else if (request.caller) key = `token:${request.headers.get("TokenId")?.trim().toLowerCase()}`;
    else if (request.partner) key = `partner:${request.partner.id}`;
    if (key === undefined) return;
    request.rateLimit = (await limits.take(kind, key)) ?? undefined;
  };
}

function carriesPartnerCredentials(headers: Headers): boolean {
  return (
    credentialHeader(headers, "PartnerId") !== undefined ||
    credentialHeader(headers, "PartnerSecret") !== undefined
  );
}
