/**
 * The form engine's rules (docs/design.md §11), compiled once per form version and applied to a
 * submission in one pass: calculations in their order, then the conditions over the values
 * with the results in place. What each section adds to the rules is its module's `compile`
 * (sections/), read leniently: a section that no longer parses, or a rule naming a field
 * since removed from the definition, adds nothing, never an error.
 */
import { compileDefinition, type FormField } from "../forms/form-definition.ts";
import type { FormRecord } from "../forms/form-record.ts";
import type { FormRules, RuleParts } from "./compiled-rules.ts";
import { type LogicData, maxExpressionText, truthy } from "./json-logic.ts";
import { settingsSections } from "./sections/registry.ts";

export type { Cascade, FormRules } from "./compiled-rules.ts";

/** What one evaluation decided. */
export interface Evaluation {
  /** The values to keep, calculated ones included, hidden ones left out. */
  values: ReadonlyMap<string, string>;
  /** Fields hidden by a `show` rule. */
  hidden: ReadonlySet<string>;
  /** Fields a `require` rule requires now. */
  required: ReadonlySet<string>;
  /** Fields whose value the server computed. */
  calculated: ReadonlySet<string>;
}

const none: ReadonlySet<string> = new Set();

const compiled = new WeakMap<FormRecord, FormRules>();

/**
 * The compiled rules of a form. Those of a frozen form (a snapshot's, one version of the
 * form: form-snapshots.ts) are kept as long as the form is, so S2 compiles once a version.
 */
export function compileRules(form: FormRecord): FormRules {
  const held = compiled.get(form);
  if (held) return held;
  const { fields } = compileDefinition(form.form_definition);
  const parts: Required<RuleParts> = {
    conditions: [],
    calculations: [],
    inventory: [],
    cascades: [],
    dynamic: [],
  };
  for (const section of settingsSections) {
    if (!section.compile) continue;
    const added = section.compile(form.form_configuration[section.name], fields);
    for (const kind of Object.keys(parts) as (keyof RuleParts)[]) {
      (parts[kind] as unknown[]).push(...(added[kind] ?? []));
    }
  }
  const rules: FormRules = {
    ...parts,
    cascades: new Map(parts.cascades),
    dynamic: new Map(parts.dynamic),
  };
  if (Object.isFrozen(form)) compiled.set(form, rules);
  return rules;
}

/**
 * Applies `rules` to the values `given` (by field name) of a form with `fields`: computes
 * the calculated fields in order (a result that is not a finite number or a string is
 * `""`, and so is one past what the calculations may add to a submission in all,
 * {@link maxExpressionText} characters), then decides which fields the conditions hide or
 * require, over the values with the results in place. A condition that cannot be evaluated
 * is false.
 *
 * A calculation sees the plain fields and the results computed before it, never a value sent
 * for a calculated field: its own and later ones read `""`, whatever the expression (one
 * stored before F2 refused names built at run time, say) asks for.
 */
export function evaluate(
  rules: FormRules,
  fields: ReadonlyMap<string, FormField>,
  given: ReadonlyMap<string, string>,
): Evaluation {
  // Most forms have no rule: the values are the ones given, with nothing built (hot path).
  if (rules.calculations.length === 0 && rules.conditions.length === 0) {
    return { values: given, hidden: none, required: none, calculated: none };
  }
  const values = new Map(given);
  const data: LogicData = {};
  const calculated = new Set(rules.calculations.map((calculation) => calculation.name));
  for (const [name, field] of fields) {
    data[name] = calculated.has(name) ? "" : logicValue(field, given.get(name) ?? "");
  }
  let left = maxExpressionText;
  for (const { name, run } of rules.calculations) {
    const result = run(data);
    let value =
      typeof result === "string" || (typeof result === "number" && Number.isFinite(result))
        ? result
        : "";
    // What the calculations add to a submission is bounded: past the budget, a result is "".
    if (String(value).length > left) value = "";
    left -= String(value).length;
    data[name] = value;
    values.set(name, String(value));
  }
  const shown = new Set<string>();
  const hidden = new Set<string>();
  const required = new Set<string>();
  for (const { fields: names, action, when } of rules.conditions) {
    const holds = truthy(when(data));
    for (const name of names) {
      if (action === "require" && holds) required.add(name);
      if (action === "show") (holds ? shown : hidden).add(name);
    }
  }
  // Shown only while every `show` rule naming it holds.
  for (const name of hidden) values.delete(name);
  for (const name of hidden) shown.delete(name);
  for (const name of hidden) required.delete(name);
  return { values, hidden, required, calculated };
}

/** A value as expressions see it: a number for a `number` field that holds one. */
function logicValue(field: FormField, value: string): string | number {
  if (field.type !== "number" || value.trim() === "") return value;
  const number = Number(value);
  return Number.isFinite(number) ? number : value;
}
