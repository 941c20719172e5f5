import { fieldValueProblem } from "../../rules/field-values.ts";
import { type FormDefinition, type FormField, fieldsOf } from "../forms/form-definition.ts";

/**
 * The values the hosted page starts with (docs/design.md §21), by system name: a hidden
 * field's `default_value`, then, for each field `allowed` names (F5's `prefill_fields`), the
 * query's value when it fits the field as S2 would check it: within `max_length`, a number
 * within bounds, an option the field offers in `definition` (F5's, with datalist options
 * filled in). A value that does not fit is left out, never an error. A checkbox field takes
 * its options joined by `|` or as repeated parameters.
 */
export function prefilledValues(
  definition: FormDefinition,
  allowed: readonly string[],
  query: URLSearchParams,
): Map<string, string> {
  const values = new Map<string, string>();
  const open = new Set(allowed);
  for (const field of fieldsOf(definition)) {
    const name = field.unique_system_name;
    if (field.type === "hidden" && field.default_value) values.set(name, field.default_value);
    if (!open.has(name) || field.type === "file") continue;
    const given = query.getAll(name);
    const value = field.type === "checkbox" ? given.join("|") : (given[0] ?? "");
    if (value !== "" && fits(field, value)) values.set(name, value);
  }
  return values;
}

function fits(field: FormField, value: string): boolean {
  const problem = fieldValueProblem(field, value, false);
  if (problem !== undefined) return problem === null;
  const choice = field.type === "select" || field.type === "radio" || field.type === "checkbox";
  const options = (choice && field.options) || [];
  const chosen = field.type === "checkbox" ? value.split("|") : [value];
  return new Set(chosen).size === chosen.length && chosen.every((c) => options.includes(c));
}
