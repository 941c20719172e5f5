import type { Context } from "./context.ts";
import { createAccount, createToken, type IssuedToken, revokeToken } from "./domain/accounts.ts";
import { createPartner, type IssuedPartner } from "./domain/partners.ts";
import { parseWith } from "./http/parse.ts";
import { createAccountBody, createPartnerBody } from "./schemas/admin.ts";

/**
 * The programmatic admin API (**extension**, design.md §2): issues accounts, tokens and
 * partners. Embedders call it directly; the HTTP routes under `/api/admin` wrap it.
 */
export interface AdminApi {
  /**
   * Creates a local account with a first token.
   * @throws {ValidationError} for an invalid e-mail; {ConflictError} when an account has
   *   that e-mail already.
   */
  createAccount(input: { email: string }): Promise<IssuedToken & { email: string }>;
  /**
   * Issues another token for an account.
   * @throws {NotFoundError} when there is no such account.
   */
  createToken(userId: string): Promise<IssuedToken>;
  /** Revokes one token; the account's other tokens stay valid. @returns `false` if unknown. */
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
    createToken: (userId) => createToken(ctx, userId),
    revokeToken: (tokenId) => revokeToken(ctx, tokenId.toLowerCase()),
    createPartner: (input) => createPartner(ctx, parseWith(createPartnerBody, input).name),
  };
}
