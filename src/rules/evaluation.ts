/**
 * The one evaluation of a form's conditions and calculations (docs/design.md §11 and §21):
 * S2 and S6 call it through src/domain/settings/form-rules.ts, and the hosted page calls it
 * live on every change (src/hosted-page/client/live-rules.ts), so what the page shows is what
 * S2 stores. Pure: it runs in Node and in the browser alike.
 */
import {
  type CompiledExpression,
  type LogicData,
  maxExpressionText,
  truthy,
} from "./json-logic.ts";

/** Fields a condition shows, or requires, while it holds. */
export interface Condition {
  fields: string[];
  action: "show" | "require";
  when: CompiledExpression;
}

/** A field whose stored value the server computes. */
export interface Calculation {
  name: string;
  run: CompiledExpression;
}

/** What one evaluation needs of a form's rules. */
export interface EvaluatedRules {
  conditions: readonly Condition[];
  /** In the order they run: each reads the plain fields and those computed before it. */
  calculations: readonly Calculation[];
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

/**
 * Applies `rules` to the values `given` (by field name) of a form with `fields` (by name,
 * each with its definition's `type`): computes the calculated fields in order (a result that
 * is not a finite number or a string is `""`, and so is one past what the calculations may
 * add to a submission in all, {@link maxExpressionText} characters), then decides which
 * fields the conditions hide or require, over the values with the results in place. A
 * condition that cannot be evaluated is false.
 *
 * A calculation sees the plain fields and the results computed before it, never a value sent
 * for a calculated field: its own and later ones read `""`, whatever the expression (one
 * stored before F2 refused names built at run time, say) asks for.
 */
export function evaluate(
  rules: EvaluatedRules,
  fields: ReadonlyMap<string, { type: string }>,
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
    data[name] = calculated.has(name) ? "" : logicValue(field.type, given.get(name) ?? "");
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
function logicValue(type: string, value: string): string | number {
  if (type !== "number" || value.trim() === "") return value;
  const number = Number(value);
  return Number.isFinite(number) ? number : value;
}
