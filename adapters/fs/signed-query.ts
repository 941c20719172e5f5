/**
 * Signed read links in the shape of an Azure service SAS (`?sv=&se=&sr=&sp=&sig=`), signed
 * and checked by this adapter with HMAC-SHA256 under the store's signing secret.
 *
 * The signature covers, joined by `\n`: `sv`, `se`, `sr`, `sp` and the canonical resource,
 * `/<container>/<name>` for a blob (`sr=b`) or `/<container>` for a container (`sr=c`).
 * It is standard base64, URL-encoded in the query like every other value.
 */
import { createHmac, timingSafeEqual } from "node:crypto";

/** The version of this signing scheme, sent as `sv`; links of any other version fail. */
export const signedVersion = "2026-11-01";

/** Read permission, the only one this store grants. */
const readPermission = "r";
const expiryPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/;

/** The fields a link's signature covers. */
interface SignedFields {
  sv: string;
  se: string;
  sr: string;
  sp: string;
  resource: string;
}

/** What a link unlocks once checked. */
export type LinkCheck = { ok: true } | { ok: false; reason: "invalid" | "expired" | "too_long" };

/** Signs a read link for one blob, or for every blob of `container` when `name` is omitted. */
export function signQuery(
  secret: Uint8Array,
  container: string,
  name: string | undefined,
  expiresAt: Date,
): string {
  if (Number.isNaN(expiresAt.getTime())) throw new RangeError("expiresAt is not a valid date");
  const fields: SignedFields = {
    sv: signedVersion,
    se: `${expiresAt.toISOString().slice(0, 19)}Z`,
    sr: name === undefined ? "c" : "b",
    sp: readPermission,
    resource: name === undefined ? `/${container}` : `/${container}/${name}`,
  };
  const { sv, se, sr, sp } = fields;
  return `?${new URLSearchParams({ sv, se, sr, sp, sig: signature(secret, fields) })}`;
}

/**
 * Checks that `query` is a current, genuine read link for blob `name` of `container`: a
 * blob link must have been signed for exactly that blob, a container link for its container,
 * and its expiry may lie at most `maxLifetimeMs` ahead of `now`.
 */
export function checkQuery(
  secret: Uint8Array,
  query: URLSearchParams,
  container: string,
  name: string,
  now: Date,
  maxLifetimeMs: number,
): LinkCheck {
  const [sv, se, sr, sp, sig] = ["sv", "se", "sr", "sp", "sig"].map((key) => query.get(key));
  if (!sv || !se || !sr || !sp || !sig) return { ok: false, reason: "invalid" };
  if (sv !== signedVersion || !sp.includes(readPermission)) return { ok: false, reason: "invalid" };
  const resource = sr === "b" ? `/${container}/${name}` : sr === "c" ? `/${container}` : null;
  if (resource === null || !expiryPattern.test(se)) return { ok: false, reason: "invalid" };
  const expected = new TextEncoder().encode(signature(secret, { sv, se, sr, sp, resource }));
  const given = new TextEncoder().encode(sig);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return { ok: false, reason: "invalid" };
  }
  const expiry = Date.parse(se);
  if (Number.isNaN(expiry) || expiry <= now.getTime()) return { ok: false, reason: "expired" };
  // A genuine link that would outlive the cap was signed by a misconfigured or leaked key:
  // no link of this store lives that long.
  if (expiry - now.getTime() > maxLifetimeMs) return { ok: false, reason: "too_long" };
  return { ok: true };
}

function signature(secret: Uint8Array, fields: SignedFields): string {
  const canonical = [fields.sv, fields.se, fields.sr, fields.sp, fields.resource].join("\n");
  return createHmac("sha256", secret).update(canonical, "utf8").digest("base64");
}
