import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { lookup } from "node:dns/promises";
import { isIP, type LookupFunction } from "node:net";
import { isPublicAddress } from "./public-addresses.ts";

/**
 * Why a webhook destination may not be called, or `null` when it may: only `http` and
 * `https`, and (unless private destinations are allowed) only hosts whose every address is
 * public.
 */
export async function destinationProblem(url: URL, allowPrivate: boolean): Promise<string | null> {
  if (url.protocol !== "http:" && url.protocol !== "https:") return "must be http or https";
  if (url.username || url.password) return "must not carry credentials";
  if (allowPrivate) return null;
  const host = url.hostname.replace(/^\[|\]$/g, "");
  let addresses: string[];
  try {
    addresses = isIP(host) ? [host] : (await lookup(host, { all: true })).map((a) => a.address);
  } catch {
    return "names a host that does not resolve";
  }
  const blocked = addresses.find((address) => !isPublicAddress(address));
  return blocked ? `resolves to ${blocked}, which is not a public address` : null;
}

/**
 * A `lookup` for `http.request` that refuses private addresses at connection time, so that a
 * name which resolved to a public address at W2 cannot be pointed at a private one later.
 */
export const publicOnlyLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { ...options, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) return callback(error, "", 4);
    const blocked = addresses.find((a) => !isPublicAddress(a.address));
    if (blocked) {
      const refusal = Object.assign(new Error(`${hostname} resolves to ${blocked.address}`), {
        code: "EWEBHOOKPRIVATE",
      });
      return callback(refusal, "", 4);
    }
    if (options.all) return callback(null, addresses as unknown as string, 4);
    const [first] = addresses;
    callback(null, first?.address ?? "", first?.family ?? 4);
  });
};
