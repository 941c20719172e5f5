import type { Caller } from "../domain/accounts/index.ts";
import { findAccount, findToken, secretMatches } from "../domain/accounts/index.ts";
import type { Context } from "../domain/context.ts";
import { UnauthorizedError } from "../kernel/errors.ts";
import { credentialHeader } from "./credential-headers.ts";
import type { FailureGuard } from "./failure-guard.ts";

export { carriesCredentials } from "./credential-headers.ts";

const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * Finds who is calling from the request's `TokenId` and `TokenSecret`; empty headers count
 * as absent (docs/design.md §2). A wrong pair counts as a failure of the client's address
 * and of the `TokenId` (docs/design.md §17).
 * @returns the caller, or `null` when the request carries no account token at all.
 * @throws {UnauthorizedError} when it carries one that is incomplete or wrong.
 * @throws the 429 of `guard` when the client failed too often, before any lookup.
 */
export async function authenticate(
  ctx: Context,
  headers: Headers,
  guard: FailureGuard,
): Promise<Caller | null> {
  const tokenId = credentialHeader(headers, "TokenId")?.toLowerCase();
  const tokenSecret = credentialHeader(headers, "TokenSecret");
  if (tokenId === undefined && tokenSecret === undefined) return null;
  if (!tokenId || !tokenSecret)
    throw new UnauthorizedError("Both TokenId and TokenSecret are required");
  const claim = guidPattern.test(tokenId) ? `token:${tokenId}` : undefined;
  // Before the lookup too: a client already refused costs no store read.
  guard.check(claim);
  const token = claim ? await findToken(ctx, tokenId) : null;
  const matches = guard.attempt(
    claim,
    () => token !== null && secretMatches(tokenSecret, token.secret_hash),
  );
  const account = matches && token ? await findAccount(ctx, token.user_id) : null;
  if (!account) throw new UnauthorizedError("Unknown TokenId or wrong TokenSecret");
  return { userId: account.id, email: account.email };
}
