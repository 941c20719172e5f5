/**
 * The form engine's rules (docs/design.md §11), compiled once per form version and applied to a
 * submission in one pass: calculations in their order, then the conditions over the values
 * with the results in place. Sections are read leniently: one that no longer parses, or a
 * rule naming a field since removed from the definition, is left out, never an error.
 */
import * as v from "valibot";
import { compileDefinition, type FormField } from "../forms/form-definition.ts";
import type { FormRecord } from "../forms/form-record.ts";
import {
  type CompiledExpression,
  compileExpression,
  type LogicData,
  truthy,
} from "./json-logic.ts";
import {
  calculatedFieldsSchema,
  cascadingListsSchema,
  conditionalLogicSchema,
  dynamicDataFieldsSchema,
  type InventoryItem,
  inventorySchema,
} from "./rule-sections.ts";

/** Where a cascading field's options come from, by the value of the field it depends on. */
export interface Cascade {
  dependsOn: string;
  optionsByValue: Readonly<Record<string, string[] | { datalist_id: string }>>;
}

/** A form's rules, compiled. */
export interface FormRules {
  conditions: { fields: string[]; action: "show" | "require"; when: CompiledExpression }[];
  calculations: { name: string; run: CompiledExpression }[];
  /** Limited options of fields that exist. */
  inventory: InventoryItem[];
  /** Cascading fields by name. */
  cascades: ReadonlyMap<string, Cascade>;
  /** Fields whose options come from a datalist, by name: the datalist id. */
  dynamic: ReadonlyMap<string, string>;
}

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
  const config = form.form_configuration;
  const known = (name: string) => fields.has(name);
  const logic = section(conditionalLogicSchema, config.conditionallogicsettings)?.rules ?? [];
  const calcs = section(calculatedFieldsSchema, config.calculatedfieldsettings)?.fields ?? [];
  const limits = section(
    v.object({ inventory: v.array(inventorySchema) }),
    config.quantitylimitsettings,
  );
  const cascades = section(cascadingListsSchema, config.privatedatalistlogicsettings)?.rules ?? [];
  const dynamic = section(dynamicDataFieldsSchema, config.dynamicdatafieldsettings)?.fields ?? [];
  const rules: FormRules = {
    conditions: logic.map((rule) => ({
      fields: rule.fields.filter(known),
      action: rule.action,
      when: compileExpression(rule.when),
    })),
    calculations: calcs
      // A file field's value names attachments: never one a calculation could make up.
      .filter(
        (calc) =>
          known(calc.unique_system_name) && fields.get(calc.unique_system_name)?.type !== "file",
      )
      .map((calc) => ({ name: calc.unique_system_name, run: compileExpression(calc.expression) })),
    inventory: (limits?.inventory ?? []).filter((item) => known(item.unique_system_name)),
    cascades: new Map(
      cascades
        .filter((rule) => known(rule.unique_system_name) && known(rule.depends_on))
        .map((rule) => [
          rule.unique_system_name,
          { dependsOn: rule.depends_on, optionsByValue: rule.options_by_value },
        ]),
    ),
    dynamic: new Map(
      dynamic
        .filter((f) => known(f.unique_system_name))
        .map((f) => [f.unique_system_name, f.datalist_id]),
    ),
  };
  if (Object.isFrozen(form)) compiled.set(form, rules);
  return rules;
}

function section<T extends v.GenericSchema>(
  schema: T,
  value: unknown,
): v.InferOutput<T> | undefined {
  const parsed = v.safeParse(schema, value);
  return parsed.success ? parsed.output : undefined;
}

/**
 * Applies `rules` to the values `given` (by field name) of a form with `fields`: computes
 * the calculated fields over the other values (a result that is not a finite number or a
 * string is `""`), then decides which fields the conditions hide or require. A condition
 * that cannot be evaluated is false.
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
  for (const [name, field] of fields) data[name] = logicValue(field, given.get(name) ?? "");
  const calculated = new Set<string>();
  for (const { name, run } of rules.calculations) {
    const result = run(data);
    const value =
      typeof result === "string" || (typeof result === "number" && Number.isFinite(result))
        ? result
        : "";
    data[name] = value;
    values.set(name, String(value));
    calculated.add(name);
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
