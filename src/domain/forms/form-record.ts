import { jsonBounds, nestsDeeperThan } from "../../kernel/json-bounds.ts";
import type { Timestamps } from "../../kernel/timestamps.ts";
import type { FormDefinition } from "./form-definition.ts";
import type { RoleFlags } from "./roles.ts";

/** The values of `form_type` we accept: the ones the hosted service is seen to use. */
export const formTypes = ["conversational", "classicsingle", "classicmulti"] as const;

/** A form's `settings`: the summary fields plus what `generalsettings` edits. */
export interface FormSettings {
  form_name: string;
  form_description?: string;
  form_type: (typeof formTypes)[number];
  form_system_version: number;
  analytics_tracking_id?: string;
  is_disabled?: boolean;
  /** The fields the hosted page may fill in from its address (docs/design.md §21). */
  prefill_fields?: string[];
  /** The hosted page's language, a tag as the owner wrote it (docs/design.md §21). */
  language?: string;
}

/** A stored form. Partition and id: the form id. */
export interface FormRecord extends Timestamps {
  id: string;
  owner_user_id: string;
  form_configuration: { settings: FormSettings } & Record<string, unknown>;
  form_definition: FormDefinition;
}

/** A form user security record. Partition: the form id. */
export interface FormUserRecord extends Timestamps, RoleFlags {
  id: string;
  form_id: string;
  granted_to_email_address?: string;
  granted_by_user_id?: string;
  granted_to_user_id?: string;
}

/** The form summary record of F4 and the `form_document_basic` of U1. */
export function formSummary(form: FormRecord, withDescription = true) {
  const { form_name, form_description, form_type, form_system_version } =
    form.form_configuration.settings;
  const settings: Partial<FormSettings> = { form_name, form_type, form_system_version };
  if (withDescription && form_description !== undefined)
    settings.form_description = form_description;
  return {
    form_configuration: { settings },
    id: form.id,
    created_date_utc: form.created_date_utc,
    modified_date_utc: form.modified_date_utc,
  };
}

/**
 * A stored form as the service may use it: a settings section or a definition nested past
 * the bounds of docs/design.md §8 (kept before those bounds were enforced) is left out, so that
 * nothing stored can make a later read fail. `form` itself is never changed.
 */
export function withinBounds(form: FormRecord): FormRecord {
  const sections = Object.entries(form.form_configuration);
  const tooDeep = (value: unknown) => nestsDeeperThan(value, jsonBounds.depth);
  const badSections = sections.some(([name, value]) => name !== "settings" && tooDeep(value));
  const badDefinition = tooDeep(form.form_definition);
  if (!badSections && !badDefinition) return form;
  const kept = sections.filter(([name, value]) => name === "settings" || !tooDeep(value));
  return {
    ...form,
    form_configuration: Object.fromEntries(kept) as FormRecord["form_configuration"],
    form_definition: badDefinition ? { pages: [] } : form.form_definition,
  };
}
