/**
 * The schemas of the settings sections that drive the form engine (docs/design.md §11), and the
 * checks a schema cannot make: that the fields, options and datalists they name exist in
 * the form, and that calculations never read themselves or a later calculation.
 */
import * as v from "valibot";
import type { ValidationIssue } from "../../kernel/errors.ts";
import { type FormDefinition, type FormField, fieldsOf } from "../forms/form-definition.ts";
import { expressionProblem, varsOf } from "./json-logic.ts";

const fieldName = v.pipe(v.string(), v.minLength(1, "must name a field"));
const guid = v.pipe(
  v.string(),
  v.regex(/^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$/, "must be a GUID"),
  v.toLowerCase(),
);
/** A JsonLogic expression: any JSON, checked for known operators against the form. */
const expression = v.unknown();

/** `conditionallogicsettings`: which fields show, or are required, while a condition holds. */
export const conditionalLogicSchema = v.looseObject({
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

/** `calculatedfieldsettings`: fields whose stored value the server computes. */
export const calculatedFieldsSchema = v.looseObject({
  fields: v.optional(
    v.array(v.object({ unique_system_name: fieldName, expression: expression })),
    [],
  ),
});

/** One limited option of `quantitylimitsettings.inventory`. */
export const inventorySchema = v.object({
  unique_system_name: fieldName,
  option: v.pipe(v.string(), v.minLength(1, "must not be empty")),
  quantity: v.pipe(v.number(), v.integer("must be a whole number"), v.minValue(0)),
});

/** `dynamicdatafieldsettings`: choice fields whose options come from a datalist. */
export const dynamicDataFieldsSchema = v.looseObject({
  fields: v.optional(v.array(v.object({ unique_system_name: fieldName, datalist_id: guid })), []),
});

/** `privatedatalistlogicsettings`: cascading lists. */
export const cascadingListsSchema = v.looseObject({
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

/** Conditional logic as stored. */
export type ConditionalLogic = v.InferOutput<typeof conditionalLogicSchema>;
/** Calculated fields as stored. */
export type CalculatedFields = v.InferOutput<typeof calculatedFieldsSchema>;
/** One limited option as stored. */
export type InventoryItem = v.InferOutput<typeof inventorySchema>;
/** Dynamic options as stored. */
export type DynamicDataFields = v.InferOutput<typeof dynamicDataFieldsSchema>;
/** Cascading lists as stored. */
export type CascadingLists = v.InferOutput<typeof cascadingListsSchema>;

/**
 * What is wrong with a parsed engine section given the form's definition: fields that do
 * not exist, expressions that do not compile or read unknown names, calculations that read
 * themselves or later ones, inventory of options a field does not offer, a recipient field
 * that is not an e-mail field. @returns one issue per fault, each naming its path.
 */
export function sectionIssues(
  section: string,
  value: Record<string, unknown>,
  definition: FormDefinition,
): ValidationIssue[] {
  const fields = new Map(fieldsOf(definition).map((f) => [f.unique_system_name, f]));
  const issues: ValidationIssue[] = [];
  const field = (name: string, path: string) => {
    const found = fields.get(name);
    if (!found) issues.push({ path, message: `${name} is not a field of this form` });
    return found;
  };
  const expressionIssues = (expr: unknown, path: string, known: (name: string) => boolean) => {
    const problem = expressionProblem(expr);
    if (problem) issues.push({ path, message: problem });
    for (const name of varsOf(expr)) {
      if (!known(name)) issues.push({ path, message: `reads ${name}, which it may not` });
    }
  };
  switch (section) {
    case "conditionallogicsettings":
      for (const [r, rule] of (value as ConditionalLogic).rules.entries()) {
        for (const [f, name] of rule.fields.entries()) field(name, `rules.${r}.fields.${f}`);
        expressionIssues(rule.when, `rules.${r}.when`, (name) => fields.has(name));
      }
      break;
    case "calculatedfieldsettings": {
      const calculated = (value as CalculatedFields).fields;
      const later = new Set(calculated.map((c) => c.unique_system_name));
      for (const [c, calc] of calculated.entries()) {
        const target = field(calc.unique_system_name, `fields.${c}.unique_system_name`);
        if (target?.type === "file") {
          const path = `fields.${c}.unique_system_name`;
          issues.push({ path, message: "must not name a file field" });
        }
        // A calculation reads plain fields and those computed before it: no cycle can form.
        expressionIssues(
          calc.expression,
          `fields.${c}.expression`,
          (name) => fields.has(name) && !later.has(name),
        );
        later.delete(calc.unique_system_name);
      }
      break;
    }
    case "quantitylimitsettings":
      for (const [i, item] of ((value.inventory ?? []) as InventoryItem[]).entries()) {
        const target = field(item.unique_system_name, `inventory.${i}.unique_system_name`);
        if (target && !offersOption(target, item.option)) {
          issues.push({
            path: `inventory.${i}.option`,
            message: `${item.option} is not an option of ${item.unique_system_name}`,
          });
        }
      }
      break;
    case "dynamicdatafieldsettings":
      for (const [d, dynamic] of (value as DynamicDataFields).fields.entries()) {
        const target = field(dynamic.unique_system_name, `fields.${d}.unique_system_name`);
        if (target && !isChoice(target))
          issues.push({
            path: `fields.${d}.unique_system_name`,
            message: "must name a select, radio or checkbox field",
          });
      }
      break;
    case "privatedatalistlogicsettings":
      for (const [r, rule] of (value as CascadingLists).rules.entries()) {
        const target = field(rule.unique_system_name, `rules.${r}.unique_system_name`);
        if (target && !isChoice(target))
          issues.push({
            path: `rules.${r}.unique_system_name`,
            message: "must name a select, radio or checkbox field",
          });
        field(rule.depends_on, `rules.${r}.depends_on`);
      }
      break;
    case "confirmationemailsettings": {
      const name = value.recipient_field;
      if (typeof name === "string" && name !== "") {
        const target = field(name, "recipient_field");
        if (target && target.type !== "email")
          issues.push({ path: "recipient_field", message: `${name} is not an e-mail field` });
      }
      break;
    }
  }
  return issues;
}

function isChoice(field: FormField): boolean {
  return field.type === "select" || field.type === "radio" || field.type === "checkbox";
}

/** Whether a field may offer `option`: its own options, or any value of a datalist. */
function offersOption(field: FormField, option: string): boolean {
  if (!isChoice(field)) return false;
  const options = (field as { options?: string[] }).options;
  return options ? options.includes(option) : true;
}
