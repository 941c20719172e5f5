import { roleNames } from "../../src/domain/forms/roles.ts";
import type { FormService } from "../../src/index.ts";
import { customerBody } from "../partners/setup.ts";
import { forgedToken, unsignedToken } from "./login-tokens.ts";
import type { CallerKind, OwnerKind } from "./matrix-callers.ts";
import { type Credentials, expectOk, type MatrixRequest, sendAs } from "./matrix-requests.ts";

/** The admin secret of the matrix's services. */
export const adminSecret = "matrix admin secret";
/** The key the matrix's services sign customer login tokens with. */
export const tokenSecret = "the matrix's key of thirty-two bytes or more";
/** How long the matrix's customer login tokens last. */
export const tokenLifetimeSeconds = 3600;

type Tenant = "local" | "P" | "Q";

/** Partners P and Q, and how to sign principals up in any tenant. */
export async function partnersOf(service: FormService) {
  const partners = {
    P: await service.admin.createPartner({ name: "Partner P" }),
    Q: await service.admin.createPartner({ name: "Partner Q" }),
  };
  const partnerHeaders = (name: "P" | "Q") => ({
    PartnerId: partners[name].partner_id,
    PartnerSecret: partners[name].partner_secret,
  });
  const asPartner = (name: "P" | "Q", request: MatrixRequest) =>
    expectOk(sendAs(service, { headers: partnerHeaders(name) }, request));
  /** P1: a customer's login token. */
  const login = async (tenant: "P" | "Q", email: string): Promise<string> => {
    const path = "/api/restricted/partner/userauth";
    const headers = { PartnerCustomerEmail: email };
    return (await asPartner(tenant, { method: "POST", path, headers })).message;
  };
  /** A signed-in principal: a local account, or a customer (P4) with its login token (P1). */
  const principal = async (tenant: Tenant, email: string, paying = true): Promise<Credentials> => {
    if (tenant === "local") {
      const account = await service.admin.createAccount({ email });
      const headers = { TokenId: account.token_id, TokenSecret: account.token_secret };
      return { headers, userId: account.user_id };
    }
    const body = customerBody(email);
    if (!paying) body.subscription_status = "free_trial";
    const path = "/api/restricted/partner/user";
    const userId = (await asPartner(tenant, { method: "POST", path, body })).id;
    const jwt = await login(tenant, email);
    const partnerAccountId = partners[tenant].partner_id;
    return { headers: { Authorization: `Bearer ${jwt}` }, partnerAccountId, userId };
  };
  return { service, partners, partnerHeaders, login, principal };
}

/** Partners P and Q of one service, and how to sign principals up. */
export type Env = Awaited<ReturnType<typeof partnersOf>>;

/**
 * Every caller that holds credentials of its own. E-mails are unique across tenants: the owner
 * grants every role to the address of each caller outside its tenant (the "twins"), and the
 * tenant rule must make those grants void.
 */
export async function callersOf({ principal, partnerHeaders }: Env, ownerKind: OwnerKind) {
  const local = ownerKind === "local";
  const ownerTenant = local ? "local" : "P";
  const credentials = {} as Record<CallerKind, Credentials>;
  credentials.owner = await principal(ownerTenant, "owner@example.com", ownerKind !== "freeTrial");
  for (const role of roleNames) {
    credentials[role] = await principal(ownerTenant, `${role}@example.com`);
  }
  credentials.removed = await principal(ownerTenant, "removed@example.com");
  credentials.downgraded = await principal(ownerTenant, "downgraded@example.com");
  const strangerEmail = local ? "stranger@example.com" : "twin-local@example.com";
  credentials.stranger = await principal("local", strangerEmail);
  const customerEmail = local ? "twin-p@example.com" : "neighbour@example.com";
  credentials.samePartnerCustomer = await principal("P", customerEmail);
  credentials.otherPartnerCustomer = await principal("Q", "twin-q@example.com");
  credentials.anonymous = { headers: {} };
  credentials.partner = { headers: partnerHeaders("P") };
  credentials.otherPartner = { headers: partnerHeaders("Q") };
  credentials.admin = { headers: { AdminSecret: adminSecret } };
  return { credentials, customerEmail };
}

/**
 * The login tokens to refuse, each naming the strongest principal a token can: the owner
 * when the owner is a customer, else a customer of P whose address holds every role.
 */
export async function badTokens(
  env: Env,
  credentials: Record<CallerKind, Credentials>,
  email: string,
  clock: { now: Date },
) {
  const real = await env.login("P", email);
  const lifetimeMs = (tokenLifetimeSeconds + 60) * 1000;
  clock.now = new Date(clock.now.getTime() - lifetimeMs);
  const expired = await env.login("P", email);
  clock.now = new Date(clock.now.getTime() + lifetimeMs);
  const bearer = (jwt: string, partnerAccountId = env.partners.P.partner_id) => ({
    headers: { Authorization: `Bearer ${jwt}` },
    partnerAccountId,
  });
  credentials.expiredJwt = bearer(expired);
  credentials.forgedJwt = bearer(await forgedToken(real));
  credentials.algNoneJwt = bearer(unsignedToken(real));
  credentials.wrongPartnerAccountId = bearer(real, env.partners.Q.partner_id);
}

/**
 * The account tokens to refuse, each of the owner's own account (customers hold an account
 * too, and the admin API can give it tokens): one revoked, one sent with another's secret.
 */
export async function badAccountTokens(
  service: FormService,
  credentials: Record<CallerKind, Credentials>,
) {
  const ownerId = credentials.owner.userId ?? "";
  const revoked = await service.admin.createToken(ownerId);
  await service.admin.revokeToken(revoked.token_id);
  credentials.revokedToken = {
    headers: { TokenId: revoked.token_id, TokenSecret: revoked.token_secret },
  };
  const other = await service.admin.createToken(ownerId);
  const secret = credentials.stranger.headers.TokenSecret ?? "";
  credentials.wrongTokenSecret = { headers: { TokenId: other.token_id, TokenSecret: secret } };
}
