import { ValidationError } from "../../kernel/errors.ts";
import type { Caller } from "../accounts/caller.ts";
import { type AuditSource, appendAudit } from "../audit/index.ts";
import type { Context } from "../context.ts";
import { accessForm, requireRole } from "../forms/form-access.ts";
import { saveForm } from "../forms/form-writes.ts";
import { cloneForm } from "../forms/forms.ts";
import { refuseUncallable } from "./destination-check.ts";
import { sectionNamed, settingsSections } from "./sections/registry.ts";

/**
 * F2: updates one settings section, checked against the form's definition by the section's
 * module (sections/), its destination URLs checked as W2 checks a webhook's, and stored as
 * the module says: by default whole, under `form_configuration.<section>`. Owner or editor.
 * `value` is the section as `parseSettingsSection` (schemas/settings.ts) read it from the
 * request. A change of where submissions go (the destination post, the confirmation e-mail)
 * is recorded in the audit trail (docs/design.md §25).
 */
export async function updateSettingsSection(
  ctx: Context,
  caller: Caller,
  formId: string,
  section: string,
  value: Record<string, unknown>,
  source: AuditSource,
) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_form_editor");
  const settings = sectionNamed(section);
  const { form_definition, form_configuration } = access.form;
  const issues = settings?.issues?.(value, form_definition, form_configuration) ?? [];
  if (issues.length) {
    throw new ValidationError(`The ${section} body does not fit the form`, issues);
  }
  for (const destination of settings?.destinations?.(value) ?? []) {
    await refuseUncallable(ctx, "destination", destination);
  }
  await settings?.beforeSave?.(ctx, formId, value);
  await saveForm(ctx, access, (form) => {
    if (settings?.save) settings.save(form.form_configuration, value);
    else form.form_configuration[section] = value;
  });
  if (settings?.audited) await appendAudit(ctx, formId, source, settings.audited, []);
}

/**
 * F1's clone: `cloneForm`, having first written what each section the form holds writes
 * before F2 stores it (`beforeSave`: a retention's registry entry), so that the clone behaves
 * as if its sections had been saved one by one.
 */
export function cloneFormWithSettings(ctx: Context, caller: Caller, formId: string) {
  return cloneForm(ctx, caller, formId, async (clone) => {
    for (const section of settingsSections) {
      const stored = clone.form_configuration[section.name];
      if (section.beforeSave && typeof stored === "object" && stored !== null) {
        await section.beforeSave(ctx, clone.id, stored as Record<string, unknown>);
      }
    }
  });
}
