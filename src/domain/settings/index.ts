/**
 * The form settings sections (docs/design.md §11): what each section may hold (its schema, the
 * domain's rule wherever the section comes from), the checks against the form's definition,
 * and the form engine that applies rules, calculations, cascading lists, limited options
 * and the thanks page to a submission. F2's route parses a section with these schemas
 * (src/schemas/settings.ts) and calls `updateSettingsSection`.
 */
export {
  behaviourSections,
  plainSections,
  renderedSections,
  settingsSections,
  updateSettingsSection,
} from "./form-settings.ts";
