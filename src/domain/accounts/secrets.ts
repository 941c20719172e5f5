import { Buffer } from "node:buffer";
import { createHash, randomBytes, randomInt, timingSafeEqual } from "node:crypto";

const letterOrDigit = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * A new random secret: a letter or digit, then 32 random bytes in base64url. It never
 * starts with `-`, which a command line would take for an option.
 */
export function newSecret(): string {
  return `${letterOrDigit[randomInt(letterOrDigit.length)]}${randomBytes(32).toString("base64url")}`;
}

/**
 * The hash kept at rest for a secret. The secrets are 256 random bits, not passwords, so a
 * fast hash is enough: nobody can guess them, and a leaked hash does not reveal them.
 */
export function hashSecret(secret: string): string {
  return createHash("sha256").update(secret, "utf8").digest("base64url");
}

/** Whether `secret` matches a stored hash, compared in constant time. */
export function secretMatches(secret: string, storedHash: string): boolean {
  const given = createHash("sha256").update(secret, "utf8").digest();
  const stored = Buffer.from(storedHash, "base64url");
  return stored.length === given.length && timingSafeEqual(given, stored);
}
