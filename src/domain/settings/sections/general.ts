/**
 * `generalsettings` (docs/design.md §11): the form's name, description, analytics id,
 * whether it is disabled, which fields the hosted page may fill in from its address
 * (`prefill_fields`, §21) and which language the page speaks (`language`, §21). Unlike the
 * other sections, F2 merges it into the form's `settings`, field by field, rather than
 * storing it whole.
 */
import * as v from "valibot";
import { type FormDefinition, fieldsOf, isPrefillable } from "../../forms/form-definition.ts";
import type { FormSettings } from "../../forms/form-record.ts";
import { definitionChecks } from "./definition-checks.ts";
import { fieldName } from "./schema-parts.ts";
import type { SettingsSection } from "./section.ts";

const name = v.pipe(v.string(), v.trim(), v.minLength(1, "must not be empty"), v.maxLength(200));

/** The languages the hosted page speaks (docs/design.md §21); the first is its fallback. */
export const pageLanguages = ["en", "de", "fr", "es"] as const;

/** A language the hosted page speaks. */
export type PageLanguage = (typeof pageLanguages)[number];

/**
 * The page language a language tag names, by its primary subtag in any case (`de`, `DE`,
 * `de-CH` and `de-Latn-CH` all name `de`), or `null` when the page does not speak it.
 */
export function pageLanguageOf(tag: unknown): PageLanguage | null {
  if (typeof tag !== "string" || !/^[a-z]{2,3}(-[a-z0-9]{1,8})*$/i.test(tag)) return null;
  const primary = tag.split("-")[0]?.toLowerCase();
  return pageLanguages.find((language) => language === primary) ?? null;
}

const language = v.pipe(
  v.nullable(
    v.pipe(
      v.string(),
      v.check(
        (tag) => pageLanguageOf(tag) !== null,
        `must be one of ${pageLanguages.join(", ")}, or one of them with a region such as de-CH`,
      ),
    ),
  ),
  v.description(
    `The hosted page's language: ${pageLanguages.join(", ")}, in any case, or one of them with a region (de-CH), stored as written. null removes it: the page then follows Accept-Language.`,
  ),
);

const schema = v.strictObject({
  form_name: v.optional(name),
  form_description: v.optional(v.pipe(v.string(), v.maxLength(5000))),
  analytics_tracking_id: v.optional(v.pipe(v.string(), v.maxLength(200))),
  is_disabled: v.optional(v.boolean()),
  prefill_fields: v.optional(v.pipe(v.array(fieldName), v.maxLength(1000))),
  language: v.optional(language),
});

/** The `generalsettings` section. */
export const generalSettings: SettingsSection<v.InferOutput<typeof schema>> = {
  name: "generalsettings",
  schema,
  issues(value, definition) {
    const check = definitionChecks(definition);
    const seen = new Set<string>();
    for (const [i, field] of (value.prefill_fields ?? []).entries()) {
      const path = `prefill_fields.${i}`;
      if (seen.has(field)) check.issues.push({ path, message: `names ${field} more than once` });
      seen.add(field);
      const target = check.field(field, path);
      if (target && !isPrefillable(target))
        check.issues.push({ path, message: `${field} is a file field, which cannot be prefilled` });
    }
    return check.issues;
  },
  save(configuration, value) {
    Object.assign(configuration.settings, value);
    // `null` clears the language: the page follows each visitor's Accept-Language again.
    if (value.language === null) delete configuration.settings.language;
  },
};

/**
 * The fields the hosted page may fill in from its address, as F5 gives them: the stored
 * `prefill_fields` read leniently, so that a name whose field was since removed, or became
 * a file field, is left out rather than refused (docs/design.md §11).
 */
export function prefillFieldsOf(settings: FormSettings, definition: FormDefinition): string[] {
  const stored: unknown = settings.prefill_fields;
  if (!Array.isArray(stored)) return [];
  const open = new Set(
    fieldsOf(definition)
      .filter(isPrefillable)
      .map((field) => field.unique_system_name),
  );
  return stored.filter((name): name is string => typeof name === "string" && open.has(name));
}
