/*
 * The rate limits' options, apart from their implementation so that the public declarations
 * (`createFormService`'s options) do not reach the router's types and through them
 * itty-router's, whose declarations a strict consumer cannot type-check.
 */

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
}
