/**
 * Failed authentications (docs/design.md §17): a wrong `TokenSecret`, `PartnerSecret` or
 * `AdminSecret`, counted in this instance's memory per client address and per claimed id, in
 * windows of a minute that start at the window's first failure, so that guessing a secret
 * is slow. Past the limit the client is refused with 429 before any secret is compared.
 *
 * - Per address: past `failedAuthPerAddressPerMinute` failures from one address, every
 *   secret it sends is refused for the rest of the window, right or wrong.
 * - Per id: past `failedAuthPerIdPerMinute` failures at one id from all addresses together,
 *   the id is under attack, and each address that has failed at it in the window is refused
 *   for it. An address that has not failed at it may still try: the owner, from an address
 *   of its own, is never locked out by someone else's guesses, and each further address of
 *   an attacker gets one guess a minute at that id instead of a full allowance.
 *
 * Nothing is reset by a success, which an attacker holding one valid credential could
 * otherwise use. Requests whose client address is unknown are neither counted nor refused,
 * as with the public rate limit. The windows follow the service's clock (`now`).
 */

/** The limits, checked (`rate-limits.ts` reads them from the options); 0 turns one off. */
export interface FailedAuthenticationLimits {
  perAddress: number;
  perId: number;
}

/** The counters of one service instance. */
export interface FailedAuthentications {
  /** The counters as one request from `address` sees them ("" when unknown). */
  of(address: string): {
    check(id: string | undefined): void;
    attempt(id: string | undefined, compare: () => boolean): boolean;
  };
}

interface Window {
  count: number;
  /** When the window ends, in the clock's milliseconds. */
  endsAt: number;
}

const windowMs = 60_000;

/**
 * Creates the counters.
 * @param now the clock, in milliseconds.
 * @param refusal the error a refused client is thrown, given the seconds it must wait.
 */
export function createFailedAuthentications(
  { perAddress, perId }: FailedAuthenticationLimits,
  now: () => number,
  refusal: (retryAfterSeconds: number) => Error,
): FailedAuthentications {
  const windows = new Map<string, Window>();
  let nextSweep = 0;
  const live = (key: string, at: number) => {
    const window = windows.get(key);
    return window && window.endsAt > at ? window : undefined;
  };
  /** Milliseconds until `address` may try `id` again, or `undefined` when it may now. */
  const waitOf = (address: string, id: string | undefined, at: number) => {
    const byAddress = live(`address ${address}`, at);
    if (perAddress > 0 && byAddress && byAddress.count >= perAddress) return byAddress.endsAt - at;
    if (perId === 0 || id === undefined) return undefined;
    const byId = live(`id ${id}`, at);
    const byPair = live(`pair ${id} ${address}`, at);
    if (byId && byPair && byId.count >= perId) return Math.min(byId.endsAt, byPair.endsAt) - at;
    return undefined;
  };
  const count = (key: string, at: number) => {
    const window = live(key, at);
    if (window) window.count++;
    else windows.set(key, { count: 1, endsAt: at + windowMs });
  };
  const fail = (address: string, id: string | undefined, at: number) => {
    // Once a window, the ended ones go: memory holds the failures of the last two minutes.
    if (at >= nextSweep) {
      for (const [key, window] of windows) if (window.endsAt <= at) windows.delete(key);
      nextSweep = at + windowMs;
    }
    count(`address ${address}`, at);
    if (id === undefined) return;
    count(`id ${id}`, at);
    count(`pair ${id} ${address}`, at);
  };
  const check = (address: string, id: string | undefined) => {
    const wait = waitOf(address, id, now());
    if (wait !== undefined) throw refusal(Math.max(1, Math.ceil(wait / 1000)));
  };
  const off = perAddress === 0 && perId === 0;
  return {
    of(address) {
      if (!address || off) return { check() {}, attempt: (_id, compare) => compare() };
      return {
        check: (id) => check(address, id),
        attempt(id, compare) {
          check(address, id);
          const matches = compare();
          if (!matches) fail(address, id, now());
          return matches;
        },
      };
    },
  };
}
