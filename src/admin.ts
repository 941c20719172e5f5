import {
  type AccountSummary,
  accountTokens,
  createAccount,
  createPartner,
  createToken,
  findAccount,
  type IssuedPartner,
  type IssuedToken,
  localAccounts,
  revokeToken,
  type TokenSummary,
} from "./domain/accounts/index.ts";
import type { Context } from "./domain/context.ts";
import { NotFoundError } from "./kernel/errors.ts";
import { parseGuid, parseUserId } from "./kernel/ids.ts";
import { parseWith } from "./kernel/parse.ts";
import { createAccountBody, createPartnerBody } from "./schemas/admin.ts";

export type {
  AccountSummary,
  IssuedPartner,
  IssuedToken,
  TokenSummary,
} from "./domain/accounts/index.ts";

/**
 * The programmatic admin API (**extension**, docs/design.md §2): issues, lists and revokes
 * accounts' tokens, and registers partners. Embedders call it directly; the HTTP routes
 * under `/api/admin` wrap it.
 */
export interface AdminApi {
  /**
   * Creates a local account with a first token.
   * @throws {ValidationError} for an invalid e-mail; {ConflictError} when an account has
   *   that e-mail already.
   */
  createAccount(input: { email: string }): Promise<IssuedToken & { email: string }>;
  /**
   * Every local account, oldest first; partner customers are listed by P3 instead.
   */
  listAccounts(): Promise<AccountSummary[]>;
  /**
   * Issues another token for an account.
   * @throws {ValidationError} when `userId` is not a user id; {NotFoundError} when there is
   *   no such account.
   */
  createToken(userId: string): Promise<IssuedToken>;
  /**
   * An account's tokens, oldest first: ids and dates, never a secret or its hash.
   * @throws {ValidationError} when `userId` is not a user id; {NotFoundError} when there is
   *   no such account.
   */
  listTokens(userId: string): Promise<TokenSummary[]>;
  /**
   * Revokes one token: it stops authenticating at once; the account's other tokens stay
   * valid. @returns `false` if there is no such token (any more).
   * @throws {ValidationError} when `tokenId` is not a GUID.
   */
  revokeToken(tokenId: string): Promise<boolean>;
  /** Registers a partner platform and issues its credentials. */
  createPartner(input: { name: string }): Promise<IssuedPartner>;
}

/** Builds the admin API over a context. */
export function createAdminApi(ctx: Context): AdminApi {
  return {
    async createAccount(input) {
      const { email } = parseWith(createAccountBody, input);
      const account = await createAccount(ctx, email);
      return { ...(await createToken(ctx, account.id)), email: account.email };
    },
    listAccounts: () => localAccounts(ctx),
    createToken: async (userId) => createToken(ctx, parseUserId(userId, "userId")),
    async listTokens(userId) {
      const id = parseUserId(userId, "userId");
      if (!(await findAccount(ctx, id))) throw new NotFoundError("Account not found");
      return accountTokens(ctx, id);
    },
    revokeToken: async (tokenId) => revokeToken(ctx, parseGuid(tokenId, "tokenId")),
    createPartner: (input) => createPartner(ctx, parseWith(createPartnerBody, input).name),
  };
}
