import { createRequire } from "node:module";

interface GeoipCountry {
  lookup(address: string): { country: string } | null;
}

// geoip-country ships no types and is CommonJS; its offline database loads on first use.
let geoip: GeoipCountry | undefined;

/**
 * The two-letter country of a public IP address from the offline GeoLite2 data of
 * `geoip-country`; "" for private, reserved or unknown addresses.
 */
export function countryOf(address: string): string {
  geoip ??= createRequire(import.meta.url)("geoip-country") as GeoipCountry;
  return geoip.lookup(address)?.country ?? "";
}
