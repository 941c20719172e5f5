import { randomBytes } from "node:crypto";
import type { PartnerSettings } from "../context.ts";
import {
  type CustomerQuotas,
  defaultCustomerQuotas,
  quotaNames,
} from "../records/customer-quotas.ts";

/** Options of the partner layer (P1–P5), given to `createFormService` as `partners`. */
export interface PartnerOptions {
  /**
   * The key that signs customer login tokens (P1, HS256): at least 32 bytes. Give every
   * instance of a service the same key, and keep it, so that tokens work on each of them
   * and across restarts.
   * @default a random key made when the service starts
   */
  tokenSecret?: string | Uint8Array;
  /**
   * How long a customer login token stays valid, in seconds.
   * @default 3600 (one hour)
   */
  tokenLifetimeSeconds?: number;
  /**
   * Quotas of a customer added by P4 without them.
   * @default defaultCustomerQuotas
   */
  quotaDefaults?: Partial<CustomerQuotas>;
}

/** Smallest key HS256 is safe with: as long as its hash. */
const minimumKeyBytes = 32;

/**
 * Checks the options and fills in the defaults.
 * @throws {RangeError} for a key shorter than 32 bytes, a lifetime that is not a positive
 *   whole number of seconds, or a default quota that is not a whole number of 0 or more.
 */
export function resolvePartnerSettings(options: PartnerOptions = {}): PartnerSettings {
  const given = options.tokenSecret;
  const tokenKey =
    given === undefined
      ? new Uint8Array(randomBytes(minimumKeyBytes))
      : typeof given === "string"
        ? new TextEncoder().encode(given)
        : given;
  if (tokenKey.byteLength < minimumKeyBytes) {
    throw new RangeError(`partners.tokenSecret must be at least ${minimumKeyBytes} bytes long`);
  }
  const tokenLifetimeSeconds = options.tokenLifetimeSeconds ?? 3600;
  if (!Number.isSafeInteger(tokenLifetimeSeconds) || tokenLifetimeSeconds < 1) {
    throw new RangeError("partners.tokenLifetimeSeconds must be a positive whole number");
  }
  const quotaDefaults = { ...defaultCustomerQuotas, ...options.quotaDefaults };
  for (const name of quotaNames) {
    if (!Number.isSafeInteger(quotaDefaults[name]) || quotaDefaults[name] < 0) {
      throw new RangeError(`partners.quotaDefaults.${name} must be a whole number of 0 or more`);
    }
  }
  return { tokenKey, tokenLifetimeSeconds, quotaDefaults };
}
