import type { Destinations } from "../ports/destinations.ts";
import { destinationProblem } from "./destination-guard.ts";
import { loadAttempt } from "./http-sender.ts";

/**
 * The {@link Destinations} of the real network: names resolved in DNS and refused when any
 * address is private (unless `allowPrivate`, for development), posts made by node:http(s)
 * through the same guard at connection time.
 */
export function createNetworkDestinations(allowPrivate: boolean): Destinations {
  return {
    problem: (url) => destinationProblem(url, allowPrivate),
    async post(message, { timeoutMs, signal }) {
      // The HTTP client loads on the first post, not when the service starts.
      const { attemptDelivery } = await loadAttempt();
      return attemptDelivery(message, { timeoutMs, allowPrivate, signal });
    },
  };
}
