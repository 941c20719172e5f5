import * as v from "valibot";
import { ValidationError } from "../../kernel/errors.ts";
import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import { accessForm, requireRole } from "../forms/form-access.ts";
import { saveForm } from "../forms/form-writes.ts";
import { confirmationEmailSchema, destinationSchema } from "./action-sections.ts";
import {
  calculatedFieldsSchema,
  cascadingListsSchema,
  conditionalLogicSchema,
  dynamicDataFieldsSchema,
  inventorySchema,
  sectionIssues,
} from "./rule-sections.ts";

const name = v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(200));
const isoTimestamp = v.pipe(v.string(), v.isoTimestamp("must be an ISO 8601 timestamp"));
const url = v.pipe(
  v.string(),
  v.url("must be a URL"),
  v.regex(/^https?:/i, "must be http or https"),
);

const thanksParam = v.object({
  param_name: v.pipe(v.string(), v.minLength(1)),
  param_value_form_field_system_name: v.optional(v.string(), ""),
  param_value_fixed: v.optional(v.string(), ""),
});

/** Sections with behaviour, validated field by field; unknown keys are kept. */
export const behaviourSections = {
  generalsettings: v.strictObject({
    form_name: v.optional(name),
    form_description: v.optional(v.pipe(v.string(), v.maxLength(5000))),
    analytics_tracking_id: v.optional(v.pipe(v.string(), v.maxLength(200))),
    is_disabled: v.optional(v.boolean()),
  }),
  thankspagesettings: v.pipe(
    v.looseObject({
      thanks_behaviour: v.optional(
        v.picklist(["inline_message", "url_redirect"]),
        "inline_message",
      ),
      thanks_behaviour_message: v.optional(v.string()),
      thanks_behaviour_redirect_parent_page: v.optional(v.boolean(), false),
      thanks_behaviour_redirect_url: v.optional(url),
      thanks_behaviour_redirect_url_params: v.optional(v.array(thanksParam), []),
    }),
    v.forward(
      v.check(
        (s) => s.thanks_behaviour !== "url_redirect" || Boolean(s.thanks_behaviour_redirect_url),
        "is required with url_redirect",
      ),
      ["thanks_behaviour_redirect_url"],
    ),
  ),
  securitysettings: v.looseObject({ requires_login: v.optional(v.boolean(), false) }),
  quantitylimitsettings: v.looseObject({
    max_total_submissions: v.optional(v.nullable(v.pipe(v.number(), v.integer(), v.minValue(0)))),
    closes_at_utc: v.optional(v.nullable(isoTimestamp)),
    inventory: v.optional(v.array(inventorySchema)),
  }),
  conditionallogicsettings: conditionalLogicSchema,
  calculatedfieldsettings: calculatedFieldsSchema,
  dynamicdatafieldsettings: dynamicDataFieldsSchema,
  privatedatalistlogicsettings: cascadingListsSchema,
  confirmationemailsettings: confirmationEmailSchema,
  destinationsettings: destinationSchema,
};

/** Sections kept as given, once they are known to be JSON objects. */
export const plainSections = ["paymentsettings"] as const;

/** Every `settingsSection` value F2 accepts, besides `generalsettingsdelete`. */
export const settingsSections = [...Object.keys(behaviourSections), ...plainSections];

/** Sections the public form page needs to render and submit; F5 returns only these. */
export const renderedSections = [
  "conditionallogicsettings",
  "calculatedfieldsettings",
  "dynamicdatafieldsettings",
  "privatedatalistlogicsettings",
  "thankspagesettings",
] as const;

/**
 * F2: updates one settings section. `generalsettings` edits the form's `settings` (only the
 * fields given); every other section is stored whole under `form_configuration.<section>`.
 * The engine's sections are checked against the form's definition (rule-sections.ts).
 * Owner or editor. `value` is the section as `parseSettingsSection` (schemas/settings.ts)
 * read it from the request.
 */
export async function updateSettingsSection(
  ctx: Context,
  caller: Caller,
  formId: string,
  section: string,
  value: Record<string, unknown>,
) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_form_editor");
  const issues = sectionIssues(section, value, access.form.form_definition);
  if (issues.length) {
    throw new ValidationError(`The ${section} body does not fit the form`, issues);
  }
  await saveForm(ctx, access, (form) => {
    if (section === "generalsettings") Object.assign(form.form_configuration.settings, value);
    else form.form_configuration[section] = value;
  });
}
