/**
 * `calculatedfieldsettings` (docs/design.md §11): fields whose stored value the server
 * computes from the others with a JsonLogic expression, whatever the client sent. F5 returns
 * it and the hosted page fills the fields in live.
 */
import * as v from "valibot";
import { compileExpression } from "../../../rules/json-logic.ts";
import { definitionChecks } from "./definition-checks.ts";
import { expression, fieldName } from "./schema-parts.ts";
import type { SettingsSection } from "./section.ts";

const schema = v.looseObject({
  fields: v.optional(
    v.array(v.object({ unique_system_name: fieldName, expression: expression })),
    [],
  ),
});

/** Calculated fields as stored. */
export type CalculatedFields = v.InferOutput<typeof schema>;

/** The `calculatedfieldsettings` section. */
export const calculatedFieldSettings: SettingsSection<CalculatedFields> = {
  name: "calculatedfieldsettings",
  schema,
  issues(value, definition) {
    const check = definitionChecks(definition);
    const later = new Set(value.fields.map((c) => c.unique_system_name));
    for (const [c, calc] of value.fields.entries()) {
      const path = `fields.${c}.unique_system_name`;
      const target = check.field(calc.unique_system_name, path);
      if (target?.type === "file")
        check.issues.push({ path, message: "must not name a file field" });
      // A calculation reads plain fields and those computed before it: no cycle can form.
      check.expression(
        calc.expression,
        `fields.${c}.expression`,
        (name) => check.has(name) && !later.has(name),
      );
      later.delete(calc.unique_system_name);
    }
    return check.issues;
  },
  compile(stored, fields) {
    return {
      calculations: storedCalculations(stored)
        // A file field's value names attachments: never one a calculation could make up.
        .filter((calc) => {
          const target = fields.get(calc.unique_system_name);
          return target !== undefined && target.type !== "file";
        })
        .map((calc) => ({
          name: calc.unique_system_name,
          run: compileExpression(calc.expression),
        })),
    };
  },
  rendered: { position: 2, value: ({ stored }) => stored },
  live: {
    feeds: "calculations",
    items: (rendered) => (rendered as Partial<CalculatedFields> | undefined)?.fields ?? [],
  },
};

/**
 * The calculations of a stored section, each read on its own: one that does not parse still
 * makes its field calculated (with no result, `""`), so that a value sent for a field the
 * owner meant to compute is never kept.
 */
function storedCalculations(
  stored: unknown,
): { unique_system_name: string; expression: unknown }[] {
  const listed = (stored as { fields?: unknown } | null | undefined)?.fields;
  if (!Array.isArray(listed)) return [];
  return listed.flatMap((item: unknown) => {
    const { unique_system_name: name, expression } = (item ?? {}) as Record<string, unknown>;
    return typeof name === "string" ? [{ unique_system_name: name, expression }] : [];
  });
}
