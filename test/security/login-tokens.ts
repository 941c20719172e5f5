import { SignJWT } from "jose";

/**
 * Customer login tokens the service must refuse (docs/design.md §2), made from a genuine one so
 * that only the part under test differs.
 */

/** The same claims, signed with a key the service does not know. */
export function forgedToken(jwt: string): Promise<string> {
  const key = new TextEncoder().encode("somebody else's key of thirty-two bytes");
  return new SignJWT(claimsOf(jwt)).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(key);
}

/** The same claims under `alg: none`, without a signature. */
export function unsignedToken(jwt: string): string {
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${encode({ alg: "none", typ: "JWT" })}.${encode(claimsOf(jwt))}.`;
}

function claimsOf(jwt: string) {
  const [, payload = ""] = jwt.split(".");
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
}
