import type { Caller } from "../domain/accounts/index.ts";
import {
  type AccountRecord,
  findAccount,
  findToken,
  secretMatches,
} from "../domain/accounts/index.ts";
import type { Context } from "../domain/context.ts";
import { UnauthorizedError } from "../kernel/errors.ts";

const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Whether a request names any credentials: an `Authorization` header (a customer login
 * token) or `TokenId`/`TokenSecret`. One without is anonymous, decided without a promise,
 * so that an anonymous S2 (the hot path) pays for no credential lookup at all.
 */
export function carriesCredentials(headers: Headers): boolean {
  return headers.has("authorization") || headers.has("TokenId") || headers.has("TokenSecret");
}

/**
 * Finds who is calling from the request's credentials.
 * @returns the caller, or `null` when the request carries no credentials at all.
 * @throws {UnauthorizedError} when it carries credentials that are incomplete or wrong.
 */
export async function authenticate(ctx: Context, headers: Headers): Promise<Caller | null> {
  const tokenId = headers.get("TokenId");
  const tokenSecret = headers.get("TokenSecret");
  if (tokenId === null && tokenSecret === null) return null;
  if (!tokenId || !tokenSecret)
    throw new UnauthorizedError("Both TokenId and TokenSecret are required");
  const account = await accountOfToken(ctx, tokenId.trim().toLowerCase(), tokenSecret.trim());
  if (!account) throw new UnauthorizedError("Unknown TokenId or wrong TokenSecret");
  return { userId: account.id, email: account.email };
}

async function accountOfToken(
  ctx: Context,
  tokenId: string,
  secret: string,
): Promise<AccountRecord | null> {
  if (!guidPattern.test(tokenId)) return null;
  const token = await findToken(ctx, tokenId);
  if (!token || !secretMatches(secret, token.secret_hash)) return null;
  return findAccount(ctx, token.user_id);
}
