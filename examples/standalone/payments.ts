/**
 * The servers' Payments port: Stripe when its keys are set (docs/design.md §26). The adapter
 * and the `stripe` package are loaded only then (their own chunk of the bundle), so a server
 * that takes no payments neither reads nor starts them.
 */
import type { Payments } from "formwork/ports";
import type { ServerConfig } from "./config.ts";

/** The Stripe adapter over the configured keys, or `undefined` when none are set. */
export async function paymentsFrom(config: ServerConfig): Promise<Payments | undefined> {
  if (!config.stripe) return undefined;
  const { createStripePayments } = await import("formwork/adapters/stripe");
  return createStripePayments(config.stripe);
}
