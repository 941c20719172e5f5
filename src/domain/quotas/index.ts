/**
 * What accounts and partner customers may use, counted crash-exact: the counter records,
 * the changes to them made in the same `Store.batch` as the records they count, the monthly
 * submission quota and the file storage quota (interface: Limits). Routes and the admin
 * API read the quota names; the other concepts change counts through these modules.
 */
export {
  type CustomerQuotas,
  defaultCustomerQuotas,
  type QuotaName,
  quotaBodyField,
  quotaField,
  quotaNames,
} from "../records/customer-quotas.ts";
