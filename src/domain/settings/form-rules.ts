/**
 * The form engine's rules (docs/design.md §11), compiled once per form version and applied to a
 * submission in one pass by `evaluate` (src/rules/evaluation.ts, which the hosted page runs
 * too): calculations in their order, then the conditions over the values with the results
 * in place. What each section adds to the rules is its module's `compile`
 * (sections/), read leniently: a section that no longer parses, or a rule naming a field
 * since removed from the definition, adds nothing, never an error.
 */
import { compileDefinition } from "../forms/form-definition.ts";
import type { FormRecord } from "../forms/form-record.ts";
import type { FormRules, RuleParts } from "./compiled-rules.ts";
import { settingsSections } from "./sections/registry.ts";

export { type Evaluation, evaluate } from "../../rules/evaluation.ts";
export type { Cascade, FormRules } from "./compiled-rules.ts";

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
