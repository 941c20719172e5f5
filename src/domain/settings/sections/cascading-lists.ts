/**
 * `privatedatalistlogicsettings`, cascading lists (docs/design.md §11): a field offers only
 * the options listed for the value chosen in the field it depends on (none when no value
 * matches); S2 enforces it. F5 carries the mapping with each datalist replaced by its values,
 * not the datalists' other entries, and the hosted page narrows the options live.
 */
import * as v from "valibot";
import type { FormRules } from "../compiled-rules.ts";
import { definitionChecks, isChoice, notChoice } from "./definition-checks.ts";
import { fieldName, guid, lenient } from "./schema-parts.ts";
import type { RenderingView, SettingsSection } from "./section.ts";

const schema = v.looseObject({
  rules: v.optional(
    v.array(
      v.object({
        unique_system_name: fieldName,
        depends_on: fieldName,
        options_by_value: v.record(
          v.string(),
          v.union(
            [v.array(v.string()), v.object({ datalist_id: guid })],
            "must be a list of options or { datalist_id }",
          ),
        ),
      }),
    ),
    [],
  ),
});

/** Cascading lists as stored. */
export type CascadingLists = v.InferOutput<typeof schema>;

/** A cascading rule as F5 renders it: every branch a list of options. */
interface RenderedCascade {
  unique_system_name: string;
  depends_on: string;
  options_by_value: Record<string, string[]>;
}

/** The `privatedatalistlogicsettings` section. */
export const cascadingListSettings: SettingsSection<CascadingLists> = {
  name: "privatedatalistlogicsettings",
  schema,
  issues(value, definition) {
    const check = definitionChecks(definition);
    for (const [r, rule] of value.rules.entries()) {
      const path = `rules.${r}.unique_system_name`;
      const target = check.field(rule.unique_system_name, path);
      if (target && !isChoice(target)) check.issues.push(notChoice(path));
      check.field(rule.depends_on, `rules.${r}.depends_on`);
    }
    return check.issues;
  },
  compile(stored, fields) {
    const rules = lenient(schema, stored)?.rules ?? [];
    return {
      cascades: rules
        .filter((rule) => fields.has(rule.unique_system_name) && fields.has(rule.depends_on))
        .map((rule) => [
          rule.unique_system_name,
          { dependsOn: rule.depends_on, optionsByValue: rule.options_by_value },
        ]),
    };
  },
  rendered: {
    position: 4,
    value: async ({ stored, rules, datalistValues }: RenderingView) =>
      rules.cascades.size ? { rules: await cascadesOf(rules, datalistValues) } : stored,
  },
  live: {
    feeds: "cascades",
    items: (rendered) => (rendered as { rules?: RenderedCascade[] } | undefined)?.rules ?? [],
  },
};

/** The cascading rules with every branch a list of options. */
async function cascadesOf(
  rules: FormRules,
  datalistValues: RenderingView["datalistValues"],
): Promise<RenderedCascade[]> {
  const rendered = [];
  for (const [name, cascade] of rules.cascades) {
    const options_by_value: Record<string, string[]> = {};
    for (const [value, branch] of Object.entries(cascade.optionsByValue)) {
      options_by_value[value] = Array.isArray(branch)
        ? branch
        : await datalistValues(branch.datalist_id);
    }
    rendered.push({ unique_system_name: name, depends_on: cascade.dependsOn, options_by_value });
  }
  return rendered;
}
