/**
 * Rate limits (docs/design.md §17), counted in memory with `rate-limiter-flexible`: per client
 * address over the public routes (F5, S2, S3 and the hosted page), and per credential (an
 * account token, a partner, a partner's customer) over the restricted routes. Each instance
 * counts its own requests; several instances behind a balancer each allow the full rate.
 */
// By file rather than from the index, which loads every store the package supports
// (rate-limiter-modules.d.ts).
import RateLimiterMemory from "rate-limiter-flexible/lib/RateLimiterMemory.js";
import RateLimiterRes from "rate-limiter-flexible/lib/RateLimiterRes.js";
import { ServiceError } from "../kernel/errors.ts";
import {
  createFailedAuthentications,
  type FailedAuthentications,
} from "./failed-authentications.ts";

/** Options of the rate limits, under `createFormService({ rateLimits })`. */
export interface RateLimitOptions {
  /**
   * Requests a minute from one client address to F5, S2, S3 and the hosted page; 0 turns the
   * limit off. Requests whose client address is unknown (the embedder passed none) are not
   * counted.
   * @default 300
   */
  publicPerMinute?: number;
  /**
   * Requests a minute with one credential (an account token, a partner, or a partner's
   * customer) to the restricted routes; 0 turns the limit off. Only credentials that
   * authenticated count, so nobody can use up another's allowance.
   * @default 3000
   */
  credentialPerMinute?: number;
  /**
   * Failed authentications (a wrong `TokenSecret`, `PartnerSecret` or `AdminSecret`) a
   * minute from one client address; past it, every secret from that address answers 429
   * for the rest of the minute, before it is compared. 0 turns it off. Requests whose
   * client address is unknown are not counted (docs/design.md §17).
   * @default 10
   */
  failedAuthPerAddressPerMinute?: number;
  /**
   * Failed authentications a minute at one claimed id (a `TokenId`, a `PartnerId`, the admin
   * secret) from all addresses together; past it, each address that has failed at that id
   * in the minute answers 429 for it, while an address that has not may still try, so that
   * the owner is not locked out by someone else's guesses. 0 turns it off.
   * @default 10
   */
  failedAuthPerIdPerMinute?: number;
}

/** Which allowance a request draws on. */
export type RateLimitKind = "public" | "credential";

/** The `RateLimit-*` headers of a counted request (draft-ietf-httpapi-ratelimit-headers). */
export type RateLimitHeaders = Record<string, string>;

/** 429 `rate_limited`, with `Retry-After` and the `RateLimit-*` headers. */
export class RateLimitedError extends ServiceError {
  /** Headers the answer carries. */
  readonly headers: RateLimitHeaders;
  /** The limit the request met, as the metrics name it. */
  readonly limit: RateLimitKind | "failed_authentication";
  constructor(
    headers: RateLimitHeaders,
    message = "Too many requests; try again later",
    limit: RateLimitKind | "failed_authentication" = "public",
  ) {
    super("rate_limited", message);
    this.headers = headers;
    this.limit = limit;
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
  /** The counts of wrong secrets, which refuse a client guessing them (docs/design.md §17). */
  readonly failedAuthentications: FailedAuthentications;
}

/**
 * Creates the limits from their options.
 * @param now the clock of the failed-authentication windows, in milliseconds.
 */
export function createRateLimits(
  options: RateLimitOptions = {},
  now: () => number = Date.now,
): RateLimits {
  const perMinute = {
    public: checkedRate(options.publicPerMinute ?? 300, "publicPerMinute"),
    credential: checkedRate(options.credentialPerMinute ?? 3000, "credentialPerMinute"),
  };
  const limiters = {
    public: perMinute.public > 0 ? limiter(perMinute.public, "public") : null,
    credential: perMinute.credential > 0 ? limiter(perMinute.credential, "credential") : null,
  };
  const failureLimits = {
    perAddress: checkedRate(
      options.failedAuthPerAddressPerMinute ?? 10,
      "failedAuthPerAddressPerMinute",
    ),
    perId: checkedRate(options.failedAuthPerIdPerMinute ?? 10, "failedAuthPerIdPerMinute"),
  };
  return {
    failedAuthentications: createFailedAuthentications(failureLimits, now, (seconds) => {
      const headers = { "Retry-After": String(seconds) };
      const message = "Too many failed authentications; try again later";
      return new RateLimitedError(headers, message, "failed_authentication");
    }),
    async take(kind, key) {
      const counter = limiters[kind];
      if (!counter) return null;
      try {
        return headersOf(perMinute[kind], await counter.consume(key));
      } catch (rejection) {
        if (!(rejection instanceof RateLimiterRes)) throw rejection;
        const headers = headersOf(perMinute[kind], rejection);
        const retryAfter = headers["RateLimit-Reset"] ?? "60";
        throw new RateLimitedError({ ...headers, "Retry-After": retryAfter }, undefined, kind);
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
