/**
 * The form engine's rules applied live in the hosted page (docs/design.md §11, §21): fields
 * shown and hidden, required or not, calculated fields filled in, by the very `evaluate` S2
 * runs (src/rules/), so the page shows what S2 will store; cascading lists narrowed to the
 * chosen value's options, sold-out options disabled. The server applies them again on submit
 * and stays the authority. Runs in the browser only.
 */
import type { LiveFeature } from "../../domain/settings/index.ts";
import { type EvaluatedRules, evaluate } from "../../rules/evaluation.ts";
import { compileExpression } from "../../rules/json-logic.ts";
import { say, words } from "./page-words.ts";
import { markRequired } from "./required-marks.ts";

/** One item of each feature, as the sections feeding it give it from F5's answer. */
interface LiveItem {
  conditions: { fields: string[]; action: "show" | "require"; when: unknown };
  calculations: { unique_system_name: string; expression: unknown };
  cascades: {
    unique_system_name: string;
    depends_on: string;
    options_by_value: Record<string, string[]>;
  };
  inventory: { unique_system_name: string; option: string; remaining: number };
}

/**
 * What the page applies, by feature (the settings sections say which they feed: their
 * `live`, src/domain/settings/sections/).
 */
export type PageRules = { [F in LiveFeature]?: LiveItem[F][] };

/** The fields of the form, by system name. */
function fieldsOf(form: HTMLFormElement): Map<string, HTMLElement> {
  const fields = form.querySelectorAll<HTMLElement>(".field");
  return new Map([...fields].map((field) => [field.dataset.name ?? "", field]));
}

/** A field's value as the page shows it now (files excepted): options joined by `|`. */
export function currentValue(field: HTMLElement): string {
  const type = field.dataset.type;
  if (type === "radio" || type === "checkbox") {
    const checked = field.querySelectorAll<HTMLInputElement>("input:checked");
    return [...checked].map((input) => input.value).join("|");
  }
  const control = field.querySelector<HTMLInputElement | HTMLSelectElement>(
    "input, select, textarea",
  );
  return type === "file" || !control ? "" : control.value;
}

/**
 * The conditions and calculations of `rules` as S2 compiles them (the sections' `compile`):
 * a calculation of a field the page lacks, or of a file field, is left out.
 */
function evaluatedRules(rules: PageRules, fields: Map<string, HTMLElement>): EvaluatedRules {
  return {
    conditions: (rules.conditions ?? []).map((rule) => ({
      fields: rule.fields.filter((name) => fields.has(name)),
      action: rule.action,
      when: compileExpression(rule.when),
    })),
    calculations: (rules.calculations ?? [])
      .filter((calc) => {
        const type = fields.get(calc.unique_system_name)?.dataset.type;
        return type !== undefined && type !== "file";
      })
      .map((calc) => ({ name: calc.unique_system_name, run: compileExpression(calc.expression) })),
  };
}

/**
 * Applies `rules` to `form` now and after every change a person makes. Each field's
 * `hidden`, its required mark with `data-required` ("true" or "false", required-marks.ts)
 * and each calculated field's value are what S2's evaluation of the same values decides.
 */
export function applyRules(form: HTMLFormElement, rules: PageRules): void {
  const fields = fieldsOf(form);
  const evaluated = evaluatedRules(rules, fields);
  const types = new Map(
    [...fields].map(([name, field]) => [name, { type: field.dataset.type ?? "" }]),
  );
  const update = () => {
    const given = new Map([...fields].map(([name, field]) => [name, currentValue(field)]));
    const evaluation = evaluate(evaluated, types, given);
    for (const name of evaluation.calculated) {
      // The page draws a calculated field as an <output> (calculated-field.ts).
      const control = fields.get(name)?.querySelector<HTMLOutputElement>("output, input");
      if (control) control.value = evaluation.values.get(name) ?? "";
    }
    for (const [name, field] of fields) {
      field.hidden = evaluation.hidden.has(name);
      markRequired(field, evaluation.required.has(name), field.hidden);
    }
    for (const rule of rules.cascades ?? []) {
      const field = fields.get(rule.unique_system_name);
      const chosen = currentValue(fields.get(rule.depends_on) ?? field ?? form);
      const offered = Object.hasOwn(rule.options_by_value, chosen)
        ? (rule.options_by_value[chosen] ?? [])
        : [];
      if (field) narrowOptions(field, offered);
    }
    for (const item of rules.inventory ?? []) {
      const field = fields.get(item.unique_system_name);
      if (field && item.remaining <= 0) soldOut(field, item.option);
    }
  };
  form.addEventListener("input", update);
  form.addEventListener("change", update);
  update();
}

/** Offers only `offered` in a choice field; a choice no longer offered is cleared. */
function narrowOptions(field: HTMLElement, offered: string[]): void {
  const select = field.querySelector("select");
  if (select) {
    const current = select.value;
    const placeholder = select.options[0]?.value === "" ? [select.options[0]] : [];
    const wanted = offered.map((option) => new Option(option, option));
    const same =
      select.options.length === placeholder.length + wanted.length &&
      wanted.every((option, n) => select.options[n + placeholder.length]?.value === option.value);
    if (same) return;
    select.replaceChildren(...placeholder.filter((o) => o !== undefined), ...wanted);
    select.value = offered.includes(current) ? current : "";
    return;
  }
  for (const input of field.querySelectorAll<HTMLInputElement>("input")) {
    const allowed = offered.includes(input.value);
    const choice = input.closest<HTMLElement>(".choice");
    if (choice) choice.hidden = !allowed;
    input.disabled = !allowed;
    if (!allowed) input.checked = false;
  }
}

/** Disables a sold-out option and says so in its label, in the page's words. */
function soldOut(field: HTMLElement, option: string): void {
  for (const control of field.querySelectorAll<HTMLInputElement | HTMLOptionElement>(
    "input, option",
  )) {
    if (control.value !== option || control.disabled) continue;
    control.disabled = true;
    const text = say(words.soldOut, { option });
    if (control instanceof HTMLOptionElement) control.textContent = text;
    else {
      const label = field.querySelector(`label[for="${control.id}"]`);
      if (label) label.textContent = text;
    }
  }
}
