/**
 * `conditionallogicsettings` (docs/design.md §11): which fields show, or are required, while
 * a JsonLogic condition over the values holds. The engine applies it on S2 and S6; F5 returns
 * it and the hosted page shows and hides fields live.
 */
import * as v from "valibot";
import { compileExpression } from "../../../rules/json-logic.ts";
import { definitionChecks } from "./definition-checks.ts";
import { expression, fieldName, lenient } from "./schema-parts.ts";
import type { SettingsSection } from "./section.ts";

const schema = v.looseObject({
  rules: v.optional(
    v.array(
      v.object({
        fields: v.pipe(v.array(fieldName), v.minLength(1, "must name at least one field")),
        action: v.picklist(["show", "require"], "must be show or require"),
        when: expression,
      }),
    ),
    [],
  ),
});

/** Conditional logic as stored. */
export type ConditionalLogic = v.InferOutput<typeof schema>;

/** The `conditionallogicsettings` section. */
export const conditionalLogicSettings: SettingsSection<ConditionalLogic> = {
  name: "conditionallogicsettings",
  schema,
  issues(value, definition) {
    const check = definitionChecks(definition);
    for (const [r, rule] of value.rules.entries()) {
      for (const [f, name] of rule.fields.entries()) check.field(name, `rules.${r}.fields.${f}`);
      check.expression(rule.when, `rules.${r}.when`, check.has);
    }
    return check.issues;
  },
  compile(stored, fields) {
    const rules = lenient(schema, stored)?.rules ?? [];
    return {
      conditions: rules.map((rule) => ({
        fields: rule.fields.filter((name) => fields.has(name)),
        action: rule.action,
        when: compileExpression(rule.when),
      })),
    };
  },
  rendered: { position: 1, value: ({ stored }) => stored },
  live: {
    feeds: "conditions",
    items: (rendered) => (rendered as Partial<ConditionalLogic> | undefined)?.rules ?? [],
  },
};
