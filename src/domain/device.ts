import type { Context } from "./context.ts";
import type { Device } from "./records/device.ts";

export type { Device };

/**
 * Describes the device at `address` with the service's country lookup: at once when the
 * lookup answers at once (the default), without the promises an `async` function would
 * make on every S2 (hot path).
 */
export function deviceOf(ctx: Context, address: string): Device | Promise<Device> {
  let country: string | Promise<string>;
  try {
    country = address ? ctx.countryOf(address) : "";
  } catch {
    // A lookup that fails must not fail the request: the country is informative only.
    country = "";
  }
  if (typeof country === "string") return device(address, country);
  return country.then(
    (found) => device(address, found),
    () => device(address, ""),
  );
}

function device(address: string, country: string): Device {
  return {
    client_ip_address: address,
    client_ip_country_code: /^[A-Z]{2}$/.test(country) ? country : "",
  };
}
