/**
 * `securitysettings` (docs/design.md §11): whether only signed-in callers may see and submit
 * the form (`requires_login`, read where a form is opened to submit: submit-access.ts).
 */
import * as v from "valibot";
import type { FormRecord } from "../../forms/form-record.ts";
import type { SettingsSection } from "./section.ts";

const schema = v.looseObject({ requires_login: v.optional(v.boolean(), false) });

/** The `securitysettings` section. */
export const securitySettings: SettingsSection<v.InferOutput<typeof schema>> = {
  name: "securitysettings",
  schema,
};

/**
 * Whether only signed-in callers may see and submit `form`: a property read, not a parse,
 * as S2 asks on every post (F2 stored the section checked).
 */
export function loginRequired(form: FormRecord): boolean {
  const section = form.form_configuration[securitySettings.name] as
    | { requires_login?: unknown }
    | undefined;
  // Truthy, as it always was read: a value stored some other way errs towards signing in.
  return Boolean(section?.requires_login);
}
