/**
 * The lists the admin API reads: every local account, and each account's tokens. Accounts
 * and tokens are partitioned by their own ids (a token is found by its id alone when it
 * authenticates), so listing them would cross partitions, which the Store does not offer.
 * Each list is therefore a partition of its own, written beside the record it lists.
 */

import { queryAll } from "../../ports/query-all.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";

/** The one partition of `localAccounts`: the identity provider of local accounts. */
const localPartition = "local";

/** An entry of the local accounts' list. */
interface LocalAccountEntry {
  /** The user id. */
  id: string;
  email: string;
  created_date_utc: string;
}

/** An entry of an account's token list; never the secret nor its hash. */
interface AccountTokenEntry {
  /** The token id. */
  id: string;
  created_date_utc: string;
}

/** A local account as the admin API lists it. */
export interface AccountSummary {
  user_id: string;
  email: string;
  created_date_utc: string;
}

/** A token as the admin API lists it: never its secret or the secret's hash. */
export interface TokenSummary {
  token_id: string;
  created_date_utc: string;
}

/** Adds a local account to the list of local accounts. */
export async function listLocalAccount(
  ctx: Context,
  account: { id: string; email: string; created_date_utc: string },
): Promise<void> {
  const { id, email, created_date_utc } = account;
  await ctx.store.create<LocalAccountEntry>(collections.localAccounts, localPartition, {
    id,
    email,
    created_date_utc,
  });
}

/** Adds a token to its account's token list. */
export async function listToken(
  ctx: Context,
  userId: string,
  token: { id: string; created_date_utc: string },
): Promise<void> {
  await ctx.store.create<AccountTokenEntry>(collections.accountTokens, userId, {
    id: token.id,
    created_date_utc: token.created_date_utc,
  });
}

/** Takes a token off its account's token list; a missing entry is fine. */
export async function unlistToken(ctx: Context, userId: string, tokenId: string): Promise<void> {
  await ctx.store.delete(collections.accountTokens, userId, tokenId);
}

/** Every local account, oldest first. Partner customers are not among them (P3 lists those). */
export async function localAccounts(ctx: Context): Promise<AccountSummary[]> {
  const entries = await queryAll<LocalAccountEntry>(
    ctx.store,
    collections.localAccounts,
    localPartition,
    { orderBy: { field: "created_date_utc" } },
  );
  return entries.map(({ id, email, created_date_utc }) => ({
    user_id: id,
    email,
    created_date_utc,
  }));
}

/** The tokens of one account, oldest first. */
export async function accountTokens(ctx: Context, userId: string): Promise<TokenSummary[]> {
  const entries = await queryAll<AccountTokenEntry>(ctx.store, collections.accountTokens, userId, {
    orderBy: { field: "created_date_utc" },
  });
  return entries.map(({ id, created_date_utc }) => ({ token_id: id, created_date_utc }));
}
