/**
 * Rate limits (design.md §8, §10), counted in memory with `rate-limiter-flexible`: per client
 * address over the public routes (F5, S2, S3 and the hosted page), and per credential (an
 * account token, a partner, a partner's customer) over the restricted routes. Each instance
 * counts its own requests; several instances behind a balancer each allow the full rate.
 */
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { authenticatePartner } from "../auth/partner-credentials.ts";
import type { Context } from "../context.ts";
import { ServiceError } from "../errors.ts";
import type { RateLimitOptions } from "./rate-limit-options.ts";
import type { RouteRequest } from "./route-request.ts";

/** Which allowance a request draws on. */
export type RateLimitKind = "public" | "credential";

/** The `RateLimit-*` headers of a counted request (draft-ietf-httpapi-ratelimit-headers). */
export type RateLimitHeaders = Record<string, string>;

/** 429 `rate_limited`, with `Retry-After` and the `RateLimit-*` headers. */
export class RateLimitedError extends ServiceError {
  /** Headers the answer carries. */
  readonly headers: RateLimitHeaders;
  constructor(headers: RateLimitHeaders) {
    super("rate_limited", "Too many requests; try again later");
    this.headers = headers;
  }
}

/** The limits of one service instance. */
export interface RateLimits {
  /**
   * Counts one request of `kind` for `key`.
   * @returns the headers to send with the answer, or `null` when that limit is off.
   * @throws {RateLimitedError} when the key has used up its allowance for the minute.
   */
  take(kind: RateLimitKind, key: string): Promise<RateLimitHeaders | null>;
}

/** Creates the limits from their options. */
export function createRateLimits(options: RateLimitOptions = {}): RateLimits {
  const perMinute = {
    public: checkedRate(options.publicPerMinute ?? 300, "publicPerMinute"),
    credential: checkedRate(options.credentialPerMinute ?? 3000, "credentialPerMinute"),
  };
  const limiters = {
    public: perMinute.public > 0 ? limiter(perMinute.public, "public") : null,
    credential: perMinute.credential > 0 ? limiter(perMinute.credential, "credential") : null,
  };
  return {
    async take(kind, key) {
      const counter = limiters[kind];
      if (!counter) return null;
      try {
        return headersOf(perMinute[kind], await counter.consume(key));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const headers = headersOf(perMinute[kind], rejection);
        throw new RateLimitedError({
          ...headers,
          "Retry-After": headers["RateLimit-Reset"] ?? "60",
        });
      }
    },
  };
}

function limiter(points: number, keyPrefix: string) {
  return new RateLimiterMemory({ points, duration: 60, keyPrefix });
}

function headersOf(limit: number, result: RateLimiterRes): RateLimitHeaders {
  return {
    "RateLimit-Limit": String(limit),
    "RateLimit-Remaining": String(Math.max(0, result.remainingPoints)),
    "RateLimit-Reset": String(Math.max(1, Math.ceil(result.msBeforeNext / 1000))),
  };
}

function checkedRate(value: number, name: string): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new TypeError(`rateLimits.${name} must be a whole number of requests, 0 or more`);
  }
  return value;
}

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
  const pathname = new URL(request.url).pathname;
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
