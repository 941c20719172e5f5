/**
 * The records the service answers with, as valibot schemas for the OpenAPI document. They
 * are strict: a field the interface does not show (a secret, our own bookkeeping) breaks
 * them, which is what the test helper's check of every answer is for.
 */
import * as v from "valibot";
import { customerStatuses } from "../domain/accounts/index.ts";
import { listTypes } from "../domain/datalists/index.ts";
import { formTypes, roleNames } from "../domain/forms/index.ts";

/** `created_date_utc` and `modified_date_utc` (`0001-01-01T00:00:00`: never modified). */
export const timestamps = { created_date_utc: v.string(), modified_date_utc: v.string() };

/** Where a record came from: the client's address and its country. */
export const device = v.strictObject({
  client_ip_address: v.string(),
  client_ip_country_code: v.string(),
});

/** A role name. */
export const roleName = v.picklist(roleNames);

/** A partner's customer (P3). */
export const customerRecord = v.strictObject({
  email: v.string(),
  provider_name: v.string(),
  first_name: v.string(),
  last_name: v.string(),
  billing_subscription_plan_original_start_date: v.string(),
  billing_subscription_plan_last_payment_date: v.string(),
  partner_client_status: v.picklist(customerStatuses),
  quota_custom_monthly_form_submissions: v.string(),
  quota_custom_total_forms: v.string(),
  quota_custom_total_datalists: v.string(),
  quota_custom_total_datalist_entries_per_datalist: v.string(),
  quota_custom_total_file_storage: v.string(),
  quota_custom_total_admin_collaborators: v.string(),
  id: v.string(),
  ...timestamps,
});

const summarySettings = {
  form_name: v.string(),
  form_type: v.picklist(formTypes),
  form_system_version: v.pipe(v.number(), v.integer()),
};

/** A form summary record (F4). */
export const formSummaryRecord = v.strictObject({
  form_configuration: v.strictObject({
    settings: v.strictObject({ ...summarySettings, form_description: v.optional(v.string()) }),
  }),
  id: v.string(),
  ...timestamps,
});

/** U1's `form_document_basic`: the summary without the description. */
export const formBasicRecord = v.strictObject({
  form_configuration: v.strictObject({ settings: v.strictObject(summarySettings) }),
  id: v.string(),
  ...timestamps,
});

/** A form user security record (U1): granted to an e-mail address, or to a user id. */
export const formUserRecord = v.strictObject({
  form_id: v.string(),
  granted_to_email_address: v.optional(v.string()),
  granted_by_user_id: v.optional(v.string()),
  granted_to_user_id: v.optional(v.string()),
  ...(Object.fromEntries(roleNames.map((role) => [role, v.boolean()])) as Record<
    (typeof roleNames)[number],
    v.BooleanSchema<undefined>
  >),
  id: v.string(),
  ...timestamps,
});

/** A datalist (D1–D4). */
export const datalistRecord = v.strictObject({
  settings: v.strictObject({
    list_name: v.string(),
    list_description: v.string(),
    list_type: v.picklist(listTypes),
  }),
  id: v.string(),
  ...timestamps,
});

/** A datalist entry item (D7). */
export const datalistEntryRecord = v.strictObject({
  datalist_id: v.string(),
  created_by_verified_email_address: v.string(),
  created_by_device: device,
  sort_order: v.pipe(v.number(), v.integer()),
  entry_value: v.string(),
  id: v.string(),
  ...timestamps,
});

/** A submission webhook (W1), with the secret its calls are signed with. */
export const webhookRecord = v.strictObject({
  id: v.string(),
  form_id: v.string(),
  created_by_user_id: v.string(),
  webhook_name: v.string(),
  webhook_destination_url: v.string(),
  http_header_key: v.string(),
  http_header_value: v.string(),
  webhook_shared_secret: v.pipe(
    v.string(),
    v.description("The Standard Webhooks signing secret, `whsec_<base64>` (extension)."),
  ),
  events: v.pipe(
    v.array(v.string()),
    v.description("The events it is called for (extension): see W2's `events`."),
  ),
  ...timestamps,
});

const submissionFields = {
  id: v.string(),
  form_id: v.string(),
  stale_form_name: v.string(),
  created_by_verified_email_address: v.string(),
  created_by_device: device,
  form_fields: v.array(
    v.strictObject({ unique_system_name: v.string(), submitted_value: v.string() }),
  ),
  is_draft_submission: v.boolean(),
  ...timestamps,
  // Extension (docs/design.md §26): present on a submission that pays.
  payment_status: v.optional(
    v.pipe(
      v.picklist(["pending", "paid", "expired", "failed"]),
      v.description(
        "Where the submission's payment stands (extension); absent when it pays nothing.",
      ),
    ),
  ),
  payment_amount: v.optional(
    v.pipe(v.number(), v.description("What it pays, in the currency's minor units (extension).")),
  ),
  payment_currency: v.optional(
    v.pipe(v.string(), v.description("ISO 4217, upper case (extension).")),
  ),
  payment_provider: v.optional(
    v.pipe(v.string(), v.description("The payment provider, e.g. `stripe` (extension).")),
  ),
  payment_reference: v.optional(
    v.pipe(
      v.string(),
      v.description("The provider's id of its checkout; empty until it is opened (extension)."),
    ),
  ),
  payment_also_paid: v.optional(
    v.pipe(
      v.array(v.string()),
      v.description("Other checkouts of it that were paid too, to refund (extension)."),
    ),
  ),
};

/** A submission as S1 shows it: without `search_words`. */
export const submissionView = v.strictObject(submissionFields);

/** A submission as S5 lists it, with its `search_words`. */
export const submissionRecord = v.strictObject({
  ...submissionFields,
  search_words: v.array(v.string()),
});

/** A submission attachment (S1, S5). */
export const attachmentRecord = v.strictObject({
  id: v.string(),
  form_id: v.string(),
  unsafe_original_filename: v.string(),
  file_size: v.pipe(v.number(), v.integer()),
  created_by_verified_email_address: v.string(),
  created_by_device: device,
  ...timestamps,
});
