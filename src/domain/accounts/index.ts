/**
 * Who may call, and on whose behalf: local accounts and their API tokens, partner platforms
 * and the customers they register (docs/design.md §2–3), the `Caller` every domain call is made by,
 * and secret hashing with constant-time comparison. Authentication (src/auth) finds a caller
 * here; the admin API and the partner routes create and list them.
 */
export {
  type AccountSummary,
  accountTokens,
  localAccounts,
  type TokenSummary,
} from "./account-lists.ts";
export {
  type AccountRecord,
  createAccount,
  createToken,
  findAccount,
  findToken,
  type IssuedToken,
  revokeToken,
  type TokenRecord,
} from "./accounts.ts";
export type { Caller } from "./caller.ts";
export {
  addCustomer,
  type CustomerFields,
  type CustomerRecord,
  type CustomerStatus,
  customerOf,
  customerStatuses,
  findCustomer,
  listCustomers,
  partnerIdOf,
  updateCustomer,
} from "./customers.ts";
export { type PartnerOptions, resolvePartnerSettings } from "./partner-settings.ts";
export { createPartner, findPartner, type IssuedPartner, type PartnerRecord } from "./partners.ts";
export { hashSecret, secretMatches } from "./secrets.ts";
