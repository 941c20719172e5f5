/**
 * The quotas a partner sets for each of its customers (interface: Limits). Each is named as
 * in the customer record's `quota_custom_<name>` field; the request bodies of P4 and P5 set
 * it as `<name>_quota` (docs/design.md §4).
 */
export const quotaNames = [
  "monthly_form_submissions",
  "total_forms",
  "total_datalists",
  "total_datalist_entries_per_datalist",
  "total_file_storage",
  "total_admin_collaborators",
] as const;

/** One customer quota. */
export type QuotaName = (typeof quotaNames)[number];

/** A value for every customer quota. */
export type CustomerQuotas = Record<QuotaName, number>;

/** The customer record field that holds a quota, as a string. */
export type QuotaField = `quota_custom_${QuotaName}`;

/**
 * The quotas of a customer that P4 adds without them. The interface names no defaults;
 * these are ours, and embedders change them with the `partners.quotaDefaults` option.
 */
export const defaultCustomerQuotas: CustomerQuotas = {
  monthly_form_submissions: 1000,
  total_forms: 100,
  total_datalists: 50,
  total_datalist_entries_per_datalist: 5000,
  /** Bytes: one gigabyte. */
  total_file_storage: 1_000_000_000,
  total_admin_collaborators: 25,
};

/** The record field of a quota: `quota_custom_<name>`. */
export function quotaField(name: QuotaName): QuotaField {
  return `quota_custom_${name}`;
}

/** The body field that sets a quota in P4 and P5: `<name>_quota`. */
export function quotaBodyField(name: QuotaName): string {
  return `${name}_quota`;
}
