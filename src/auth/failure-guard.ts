/**
 * What authentication asks of the failed-authentication counters (docs/design.md §17), for
 * one request, whose client address they already know. The ids it names are the credential
 * a request claims: `token:<TokenId>`, `partner:<PartnerId>`, `admin`; `undefined` when the
 * claimed id cannot exist (not a GUID), which then counts against the address only.
 */
export interface FailureGuard {
  /**
   * Refuses, before any lookup, a client that failed too often (from its address, or at
   * this id from its address while the id is under attack).
   * @throws the 429 `rate_limited` error, with `Retry-After`.
   */
  check(id: string | undefined): void;
  /**
   * Checks as `check` does, then runs `compare` and counts a failure when it answers false,
   * all synchronously: concurrent guesses cannot all pass the check before the first
   * failure is counted.
   * @returns what `compare` answered.
   * @throws the 429 `rate_limited` error, without calling `compare`.
   */
  attempt(id: string | undefined, compare: () => boolean): boolean;
}
