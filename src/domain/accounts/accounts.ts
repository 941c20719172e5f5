import { ConflictError, NotFoundError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import { createdAt, type Timestamps } from "../../kernel/timestamps.ts";
import { StoreConflictError } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { listLocalAccount, listToken, unlistToken } from "./account-lists.ts";
import { normaliseEmail } from "./caller.ts";
import { hashSecret, newSecret } from "./secrets.ts";

/** An account that can hold tokens and own forms and datalists. */
export interface AccountRecord extends Timestamps {
  /** The user id, `<identity_provider>|<user_guid>`. */
  id: string;
  email: string;
}

/** Maps an e-mail to its account, so that e-mails stay unique. */
interface AccountEmailRecord {
  id: string;
  user_id: string;
}

/** A stored account token; only the hash of its secret is kept. */
export interface TokenRecord extends Timestamps {
  id: string;
  user_id: string;
  secret_hash: string;
}

/** A token as handed out once, with its secret in the clear. */
export interface IssuedToken {
  user_id: string;
  token_id: string;
  token_secret: string;
}

/**
 * Creates an account for an e-mail under an identity provider.
 * @throws {ConflictError} when an account already has that e-mail.
 */
export async function createAccount(
  ctx: Context,
  email: string,
  provider = "local",
): Promise<AccountRecord> {
  const normalised = normaliseEmail(email);
  const id = `${provider}|${newId()}`;
  const account: AccountRecord = { id, email: normalised, ...createdAt(ctx.now()) };
  await ctx.store.create(collections.accounts, id, account);
  try {
    await ctx.store.create<AccountEmailRecord>(collections.accountEmails, normalised, {
      id: normalised,
      user_id: id,
    });
  } catch (error) {
    // The e-mail record is what makes an account reachable; without it, undo the account.
    await ctx.store.delete(collections.accounts, id, id);
    if (error instanceof StoreConflictError) {
      throw new ConflictError("An account with this e-mail already exists");
    }
    throw error;
  }
  if (provider === "local") {
    try {
      await listLocalAccount(ctx, account);
    } catch (error) {
      // An account the admin cannot list is not made at all: undo it, e-mail included.
      await ctx.store.delete(collections.accountEmails, normalised, normalised);
      await ctx.store.delete(collections.accounts, id, id);
      throw error;
    }
  }
  return account;
}

/** The account with this user id, or `null`. */
/** A token by its id, or `null` when there is none. */
export async function findToken(ctx: Context, tokenId: string): Promise<TokenRecord | null> {
  return (await ctx.store.get<TokenRecord>(collections.tokens, tokenId, tokenId))?.record ?? null;
}

/** An account by its user id, or `null` when there is none. */
export async function findAccount(ctx: Context, userId: string): Promise<AccountRecord | null> {
  return (await ctx.store.get<AccountRecord>(collections.accounts, userId, userId))?.record ?? null;
}

/** The account with this e-mail, or `null`. */
export async function findAccountByEmail(
  ctx: Context,
  email: string,
): Promise<AccountRecord | null> {
  const normalised = normaliseEmail(email);
  const entry = await ctx.store.get<AccountEmailRecord>(
    collections.accountEmails,
    normalised,
    normalised,
  );
  return entry ? findAccount(ctx, entry.record.user_id) : null;
}

/**
 * Issues a new account token for a user; other tokens of the user stay valid.
 * @throws {NotFoundError} when there is no such account.
 */
export async function createToken(ctx: Context, userId: string): Promise<IssuedToken> {
  if (!(await findAccount(ctx, userId))) throw new NotFoundError("Account not found");
  const token_id = newId();
  const token_secret = newSecret();
  const token: TokenRecord = {
    id: token_id,
    user_id: userId,
    secret_hash: hashSecret(token_secret),
    ...createdAt(ctx.now()),
  };
  await ctx.store.create<TokenRecord>(collections.tokens, token_id, token);
  try {
    await listToken(ctx, userId, token);
  } catch (error) {
    // A token that works but that no list shows could never be found to be revoked.
    await ctx.store.delete(collections.tokens, token_id, token_id);
    throw error;
  }
  return { user_id: userId, token_id, token_secret };
}

/**
 * Revokes one token: it stops authenticating at once; the user's other tokens stay valid.
 * @returns `false` when there was no such token.
 */
export async function revokeToken(ctx: Context, tokenId: string): Promise<boolean> {
  const token = await ctx.store.get<TokenRecord>(collections.tokens, tokenId, tokenId);
  if (!token) return false;
  // The token first: should the list entry outlive it, it names a token that no longer works.
  if (!(await ctx.store.delete(collections.tokens, tokenId, tokenId))) return false;
  await unlistToken(ctx, token.record.user_id, tokenId);
  return true;
}
