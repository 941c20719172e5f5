import * as v from "valibot";
import type { NamedSchema } from "./operation.ts";

/** The action result envelope of most write endpoints. */
export const actionResult: NamedSchema = {
  name: "ActionResult",
  schema: v.strictObject({
    id: v.string(),
    message: v.string(),
    action_successful: v.literal(true),
    error: v.literal(""),
  }),
};

const thanksParam = v.strictObject({
  param_name: v.string(),
  param_value_form_field_system_name: v.string(),
  param_value_fixed: v.string(),
});

/** S2's answer. */
export const submissionPosted: NamedSchema = {
  name: "SubmissionPosted",
  schema: v.strictObject({
    id: v.string(),
    message: v.literal("Submission posted successfully"),
    thanks_behaviour: v.picklist(["inline_message", "url_redirect"]),
    thanks_behaviour_message: v.optional(v.string()),
    thanks_behaviour_redirect_parent_page: v.boolean(),
    thanks_behaviour_redirect_url: v.optional(v.string()),
    thanks_behaviour_redirect_url_params: v.optional(v.array(thanksParam)),
    cloud_database_post_expected_but_failed: v.boolean(),
    email_address_post_expected_but_failed: v.boolean(),
    actionSuccessful: v.literal(true),
  }),
};

/** A new account or token from the admin API. */
export const issuedToken: NamedSchema = {
  name: "IssuedToken",
  schema: v.strictObject({
    user_id: v.string(),
    email: v.optional(v.string()),
    token_id: v.string(),
    token_secret: v.string(),
  }),
};

/** The local accounts, as the admin API lists them. */
export const accountList: NamedSchema = {
  name: "AccountList",
  schema: v.array(
    v.strictObject({ user_id: v.string(), email: v.string(), created_date_utc: v.string() }),
  ),
};

/** An account's tokens, as the admin API lists them: no secret, no hash. */
export const tokenList: NamedSchema = {
  name: "TokenList",
  schema: v.array(v.strictObject({ token_id: v.string(), created_date_utc: v.string() })),
};

/** A new partner's credentials from the admin API. */
export const issuedPartner: NamedSchema = {
  name: "IssuedPartner",
  schema: v.strictObject({
    partner_id: v.string(),
    partner_secret: v.string(),
    partner_account_id: v.string(),
  }),
};

/** A boolean confirmation (D6, S6, S7), by the name of its flag. */
export function confirmation(name: string, flag: string, message: string): NamedSchema {
  return { name, schema: v.strictObject({ message: v.literal(message), [flag]: v.boolean() }) };
}
