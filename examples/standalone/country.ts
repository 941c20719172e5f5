import { createRequire } from "node:module";

interface GeoipCountry {
  lookup(address: string): { country: string } | null;
}

// geoip-country ships no types and is CommonJS; its offline database loads on first use.
// `null`: not installed (the package's `formwork start`, which does not bundle its data).
let geoip: GeoipCountry | null | undefined;

/**
 * The two-letter country of a public IP address from the offline GeoLite2 data of
 * `geoip-country`; "" for private, reserved or unknown addresses, and when `geoip-country`
 * is not installed.
 */
export function countryOf(address: string): string {
  if (geoip === undefined) {
    try {
      geoip = createRequire(import.meta.url)("geoip-country") as GeoipCountry;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "MODULE_NOT_FOUND") throw error;
      geoip = null;
    }
  }
  return geoip?.lookup(address)?.country ?? "";
}
