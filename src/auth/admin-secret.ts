import { hashSecret, secretMatches } from "../domain/accounts/index.ts";
import { NotFoundError, UnauthorizedError } from "../kernel/errors.ts";
import { credentialHeader } from "./credential-headers.ts";
import type { FailureGuard } from "./failure-guard.ts";

/**
 * The check of the admin API's `AdminSecret` header against the configured secret, kept
 * only as a hash and compared in constant time. Without a configured secret the admin
 * routes do not exist: every check is a 404. An empty header counts as absent
 * (docs/design.md §2); a wrong secret counts as a failure of the client's address and of
 * the one id `admin` (docs/design.md §17).
 * @returns a check that throws {UnauthorizedError} for a missing or wrong secret, and the
 *   429 of `guard` when the client failed too often.
 */
export function adminSecretCheck(
  adminSecret: string | undefined,
): (headers: Headers, guard: FailureGuard) => void {
  const secretHash = adminSecret ? hashSecret(adminSecret) : undefined;
  return (headers, guard) => {
    if (!secretHash) throw new NotFoundError();
    const given = credentialHeader(headers, "AdminSecret");
    if (!given || !guard.attempt("admin", () => secretMatches(given, secretHash))) {
      throw new UnauthorizedError("A valid AdminSecret is required");
    }
  };
}
