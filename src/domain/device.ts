import type { Context } from "./context.ts";

/** The `created_by_device` object of entries, submissions and attachments. */
export interface Device {
  client_ip_address: string;
  /** Two-letter country code; empty where unknown or private. */
  client_ip_country_code: string;
}

/** Describes the device at `address` with the service's country lookup. */
export async function deviceOf(ctx: Context, address: string): Promise<Device> {
  let country = "";
  try {
    country = address ? await ctx.countryOf(address) : "";
  } catch {
    // A lookup that fails must not fail the request: the country is informative only.
  }
  return {
    client_ip_address: address,
    client_ip_country_code: /^[A-Z]{2}$/.test(country) ? country : "",
  };
}
