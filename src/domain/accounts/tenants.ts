/**
 * Tenants (docs/design.md §3): the service's local accounts form one, and each partner's
 * customers form one per partner. A user id `<identity_provider>|<user_guid>` names its
 * tenant by its provider (`local`, `partner_<partner guid>`).
 */

/** The tenant of a user id: its identity provider. */
export function tenantOf(userId: string): string {
  const bar = userId.indexOf("|");
  return bar < 0 ? userId : userId.slice(0, bar);
}

/**
 * Whether a grant made on a form of `ownerUserId` may apply to `userId`. E-mail addresses are
 * not verified, so a grant never crosses tenants: a partner that registers a customer with
 * an address someone else granted gets nothing from that grant.
 */
export function sameTenant(ownerUserId: string, userId: string): boolean {
  return tenantOf(ownerUserId) === tenantOf(userId);
}
