/**
 * `generalsettings` (docs/design.md §11): the form's name, description, analytics id and
 * whether it is disabled. Unlike the other sections, F2 merges it into the form's `settings`,
 * field by field, rather than storing it whole.
 */
import * as v from "valibot";
import type { SettingsSection } from "./section.ts";

const name = v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(200));

const schema = v.strictObject({
  form_name: v.optional(name),
  form_description: v.optional(v.pipe(v.string(), v.maxLength(5000))),
  analytics_tracking_id: v.optional(v.pipe(v.string(), v.maxLength(200))),
  is_disabled: v.optional(v.boolean()),
});

/** The `generalsettings` section. */
export const generalSettings: SettingsSection<v.InferOutput<typeof schema>> = {
  name: "generalsettings",
  schema,
  save(configuration, value) {
    Object.assign(configuration.settings, value);
  },
};
