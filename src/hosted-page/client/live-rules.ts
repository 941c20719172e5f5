/**
 * The form engine's rules applied live in the hosted page (docs/design.md §11), with the same
 * JsonLogic library as the server: fields shown and hidden, calculated fields filled in,
 * cascading lists narrowed to the chosen value's options, sold-out options disabled. The
 * server applies them again on submit and stays the authority. Runs in the browser only.
 */
import { LogicEngine } from "json-logic-engine";
import type { LiveFeature } from "../../domain/settings/index.ts";
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

// `run` interprets with closures and never compiles with eval, which the page's CSP forbids.
const engine = new LogicEngine();

function evaluate(expression: unknown, data: Record<string, unknown>): unknown {
  try {
    return engine.run(expression, data);
  } catch {
    return undefined;
  }
}

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

function logicValue(field: HTMLElement, value: string): string | number {
  if (field.dataset.type !== "number" || value.trim() === "") return value;
  const number = Number(value);
  return Number.isFinite(number) ? number : value;
}

/** Applies `rules` to `form` now and after every change a person makes. */
export function applyRules(form: HTMLFormElement, rules: PageRules): void {
  const fields = fieldsOf(form);
  const calculations = rules.calculations ?? [];
  for (const { unique_system_name: name } of calculations) {
    const control = fields.get(name)?.querySelector("input");
    if (control) control.readOnly = true;
  }
  // As the server does: a calculation sees the plain fields and the results before it; its
  // own field and later calculated ones read "".
  const calculated = new Set(calculations.map((calculation) => calculation.unique_system_name));
  const update = () => {
    const data: Record<string, string | number> = {};
    for (const [name, field] of fields) {
      data[name] = calculated.has(name) ? "" : logicValue(field, currentValue(field));
    }
    for (const { unique_system_name: name, expression } of calculations) {
      const result = evaluate(expression, data);
      const value =
        typeof result === "string" || (typeof result === "number" && Number.isFinite(result))
          ? result
          : "";
      data[name] = value;
      // The page draws a calculated field as an <output> (calculated-field.ts).
      const control = fields.get(name)?.querySelector("input, output");
      if (control) (control as HTMLInputElement | HTMLOutputElement).value = String(value);
    }
    const hidden = new Set<string>();
    for (const rule of rules.conditions ?? []) {
      if (rule.action !== "show" || engine.truthy(evaluate(rule.when, data))) continue;
      for (const name of rule.fields) hidden.add(name);
    }
    const required = new Set<string>();
    for (const rule of rules.conditions ?? []) {
      if (rule.action !== "require" || !engine.truthy(evaluate(rule.when, data))) continue;
      for (const name of rule.fields) required.add(name);
    }
    for (const [name, field] of fields) {
      field.hidden = hidden.has(name);
      markRequired(field, required.has(name) && !hidden.has(name));
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

/** Disables a sold-out option and says so in its label. */
function soldOut(field: HTMLElement, option: string): void {
  for (const control of field.querySelectorAll<HTMLInputElement | HTMLOptionElement>(
    "input, option",
  )) {
    if (control.value !== option || control.disabled) continue;
    control.disabled = true;
    if (control instanceof HTMLOptionElement) control.textContent = `${option} (sold out)`;
    else {
      const label = field.querySelector(`label[for="${control.id}"]`);
      if (label) label.textContent = `${option} (sold out)`;
    }
  }
}
