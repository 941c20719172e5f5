import { type Role, roleNames } from "../../src/domain/forms/roles.ts";

/**
 * Every kind of caller the authorization matrix tries on every route. Tenants
 * (docs/design.md §3): "local" accounts form one, each partner's customers another; the
 * form's owner is a local account or a customer of partner P, and Q is another partner.
 */
export const callerKinds = [
  "owner",
  ...roleNames,
  /** Granted all five roles, then removed (U4). */
  "removed",
  /** Granted all five roles, then downgraded to `has_form_submission` only (U3). */
  "downgraded",
  /**
   * Another local account: no grant when the owner is local; when the owner is a customer,
   * its address holds every role, which the tenant rule must void.
   */
  "stranger",
  "anonymous",
  /** Partner P's credentials (the owner's partner when the owner is a customer). */
  "partner",
  /** Partner Q's credentials. */
  "otherPartner",
  /** A customer of partner Q, whose address the owner granted every role to. */
  "otherPartnerCustomer",
  /**
   * A customer of partner P: no grant when the owner is P's customer; when the owner is
   * local, its address holds every role, which the tenant rule must void.
   */
  "samePartnerCustomer",
  /** The service's admin secret. */
  "admin",
  /** A login token the service signed that has expired. */
  "expiredJwt",
  /** A login token signed with another key. */
  "forgedJwt",
  /** A login token with `alg: none` and no signature. */
  "algNoneJwt",
  /** A valid login token sent with another partner's `partnerAccountId`. */
  "wrongPartnerAccountId",
  /** The owner's account token, revoked. */
  "revokedToken",
  /** The owner's TokenId with another account's TokenSecret. */
  "wrongTokenSecret",
] as const;

/** One kind of caller. */
export type CallerKind = (typeof callerKinds)[number];

/**
 * Who owns the form, and so which tenant the grants bind in: a local account, a paying
 * customer of partner P, or one on a free trial (whose forms only its owner may reach).
 */
export type OwnerKind = "local" | "customer" | "freeTrial";

/** Every owner kind the matrix runs for. */
export const ownerKinds: readonly OwnerKind[] = ["local", "customer", "freeTrial"];

/** What a caller's credentials amount to, as the rules of docs/design.md §2 and §3 read them. */
export interface CallerFacts {
  /** `signedIn`: an account or a customer; `invalid`: credentials to refuse with 401. */
  identity: "signedIn" | "none" | "invalid" | "partnerP" | "partnerQ" | "admin";
  /** The roles the caller holds on the owner's form; `owner` for the owner. */
  roles: "owner" | readonly Role[];
}

const invalid = new Set<CallerKind>([
  "expiredJwt",
  "forgedJwt",
  "algNoneJwt",
  "wrongPartnerAccountId",
  "revokedToken",
  "wrongTokenSecret",
]);
const notSignedIn: Partial<Record<CallerKind, CallerFacts["identity"]>> = {
  anonymous: "none",
  partner: "partnerP",
  otherPartner: "partnerQ",
  admin: "admin",
};

/** The facts of one kind of caller. Grants never cross tenants, so neither owner kind differs. */
export function factsOf(kind: CallerKind): CallerFacts {
  const identity = invalid.has(kind) ? "invalid" : (notSignedIn[kind] ?? "signedIn");
  if (kind === "owner") return { identity, roles: "owner" };
  if (kind === "downgraded") return { identity, roles: ["has_form_submission"] };
  const role = roleNames.find((name) => name === kind);
  return { identity, roles: role ? [role] : [] };
}
