/**
 * `dynamicdatafieldsettings` (docs/design.md §11): choice fields whose options come from a
 * datalist of the form's owner, as with a field's own `datalist_id`. F5 fills the options in
 * and S2 accepts only those.
 */
import * as v from "valibot";
import { definitionChecks, isChoice, notChoice } from "./definition-checks.ts";
import { fieldName, guid, lenient } from "./schema-parts.ts";
import type { SettingsSection } from "./section.ts";

const schema = v.looseObject({
  fields: v.optional(v.array(v.object({ unique_system_name: fieldName, datalist_id: guid })), []),
});

/** Dynamic options as stored. */
export type DynamicDataFields = v.InferOutput<typeof schema>;

/** The `dynamicdatafieldsettings` section. */
export const dynamicDataFieldSettings: SettingsSection<DynamicDataFields> = {
  name: "dynamicdatafieldsettings",
  schema,
  issues(value, definition) {
    const check = definitionChecks(definition);
    for (const [d, dynamic] of value.fields.entries()) {
      const path = `fields.${d}.unique_system_name`;
      const target = check.field(dynamic.unique_system_name, path);
      if (target && !isChoice(target)) check.issues.push(notChoice(path));
    }
    return check.issues;
  },
  compile(stored, fields) {
    const dynamic = lenient(schema, stored)?.fields ?? [];
    return {
      dynamic: dynamic
        .filter((f) => fields.has(f.unique_system_name))
        .map((f) => [f.unique_system_name, f.datalist_id]),
    };
  },
  rendered: { position: 3, value: ({ stored }) => stored },
};
