import { hashSecret, secretMatches } from "../domain/accounts/index.ts";
import { NotFoundError, UnauthorizedError } from "../kernel/errors.ts";

/**
 * The check of the admin API's `AdminSecret` header against the configured secret, kept
 * only as a hash and compared in constant time. Without a configured secret the admin
 * routes do not exist: every check is a 404.
 * @returns a check that throws {UnauthorizedError} for a missing or wrong secret.
 */
export function adminSecretCheck(adminSecret: string | undefined): (headers: Headers) => void {
  const secretHash = adminSecret ? hashSecret(adminSecret) : undefined;
  return (headers) => {
    if (!secretHash) throw new NotFoundError();
    const given = headers.get("AdminSecret");
    if (!given || !secretMatches(given, secretHash)) {
      throw new UnauthorizedError("A valid AdminSecret is required");
    }
  };
}
