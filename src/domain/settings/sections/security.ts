/**
 * `securitysettings` (docs/design.md §11): whether only signed-in callers may see and submit
 * the form (`requires_login`, read where a form is opened to submit: forms/form-access.ts).
 */
import * as v from "valibot";
import type { SettingsSection } from "./section.ts";

const schema = v.looseObject({ requires_login: v.optional(v.boolean(), false) });

/** The `securitysettings` section. */
export const securitySettings: SettingsSection<v.InferOutput<typeof schema>> = {
  name: "securitysettings",
  schema,
};
