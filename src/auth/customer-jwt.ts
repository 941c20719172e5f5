import { errors, jwtVerify, SignJWT } from "jose";
import type { Caller } from "../domain/accounts/index.ts";
import { type CustomerRecord, customerOf, partnerIdOf } from "../domain/accounts/index.ts";
import type { Context } from "../domain/context.ts";
import { UnauthorizedError } from "../kernel/errors.ts";
import { bearerToken, credentialHeader } from "./credential-headers.ts";

/**
 * Customer login tokens (P1, P2; docs/design.md §2): JWTs signed with HS256 under the service's
 * `partners.tokenSecret`, carrying `sub` (the customer's user id), `email`, `partner_id`,
 * `iat` and `exp`. Verification accepts HS256 only, so `alg: none` and every other
 * algorithm are refused.
 */

/** The claims of a customer login token besides `iat` and `exp`. */
export interface CustomerClaims {
  /** The customer's user id, `partner_<partner id>|<guid>`. */
  sub: string;
  email: string;
  /** The partner that asked for the token; P2 callers pass it as `partnerAccountId`. */
  partner_id: string;
}

const requiredClaims = ["sub", "email", "partner_id", "iat", "exp"];

/** P1: a login token for one of a partner's customers, valid from now for the lifetime set. */
export async function signCustomerToken(ctx: Context, customer: CustomerRecord): Promise<string> {
  const issuedAt = Math.floor(ctx.now().getTime() / 1000);
  return new SignJWT({ email: customer.email, partner_id: partnerIdOf(customer.id) })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setSubject(customer.id)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + ctx.partners.tokenLifetimeSeconds)
    .sign(ctx.partners.tokenKey);
}

/**
 * Checks a customer login token's signature, algorithm, expiry and claims.
 * @throws {UnauthorizedError} for any token this service did not sign, or signed too long ago.
 */
export async function verifyCustomerToken(ctx: Context, token: string): Promise<CustomerClaims> {
  try {
    const { payload } = await jwtVerify(token, ctx.partners.tokenKey, {
      algorithms: ["HS256"],
      currentDate: ctx.now(),
      requiredClaims,
    });
    const { sub, email, partner_id } = payload;
    if (typeof sub !== "string" || typeof email !== "string" || typeof partner_id !== "string") {
      throw new UnauthorizedError("The login token is not valid");
    }
    return { sub, email, partner_id };
  } catch (error) {
    if (error instanceof errors.JWTExpired) {
      throw new UnauthorizedError("The login token has expired; ask the partner for a new one");
    }
    if (error instanceof errors.JOSEError)
      throw new UnauthorizedError("The login token is not valid");
    throw error;
  }
}

/**
 * P2: the customer a request acts for, from `Authorization: Bearer <token>` and the
 * `partnerAccountId` query parameter, which must be the id of the partner that asked for
 * the token.
 * Empty headers count as absent (docs/design.md §2). A failure here is not counted against
 * the client (docs/design.md §17): a token signed under a key of 32 bytes or more cannot be
 * guessed, and an expired one is a client's everyday mistake.
 * @returns the customer as the caller, or `null` when the request carries no bearer token.
 * @throws {UnauthorizedError} when the token is not valid, `partnerAccountId` is missing or
 *   names another partner, the customer is gone, or account-token headers come along too.
 */
export async function authenticateCustomer(ctx: Context, request: Request): Promise<Caller | null> {
  const token = bearerToken(request.headers);
  if (!token) return null;
  if (
    credentialHeader(request.headers, "TokenId") ||
    credentialHeader(request.headers, "TokenSecret")
  ) {
    throw new UnauthorizedError("Send either a customer login token or TokenId and TokenSecret");
  }
  const given = new URL(request.url).searchParams.get("partnerAccountId");
  if (!given) {
    throw new UnauthorizedError("partnerAccountId is required with a customer login token");
  }
  const claims = await verifyCustomerToken(ctx, token);
  const partnerAccountId = given
    .trim()
    .toLowerCase()
    .replace(/^\{(.*)\}$/, "$1");
  if (partnerAccountId !== claims.partner_id || partnerIdOf(claims.sub) !== claims.partner_id) {
    throw new UnauthorizedError("The login token was not issued for this partnerAccountId");
  }
  const customer = await customerOf(ctx, claims.sub);
  if (!customer) throw new UnauthorizedError("The customer of this login token no longer exists");
  return { userId: customer.id, email: customer.email };
}
