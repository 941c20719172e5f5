/**
 * The page's errors (docs/design.md §21): each field's message under it, tied to its control
 * (`aria-invalid`), and the summary above the form that links to each field that still has
 * one. Once a submit has failed, a field is checked again as S2 checks it
 * (`fieldValueProblem`, with the requiredness live-rules.ts keeps): an error clears or
 * changes as soon as its field's value changes, and a field left (blur) shows what is wrong
 * with it. S2's word on what the page cannot judge (a datalist's entries, an upload) stands
 * until the value changes. Each problem is said in the page's language (page-words.ts).
 *
 * A screen reader hears (docs/design.md §21): after a failed submit, the summary's sentence
 * (`role="alert"`) and then the focused field with its error (`aria-describedby`); and while
 * the person edits, each error that appears or changes, once, through the polite live
 * region `#form-news`. The errors themselves are not live regions, so that a failed submit
 * does not read them all out, and an unchanged error is not written again on each keystroke.
 */
import type { FieldProblem } from "../../rules/field-problems.ts";
import { type CheckedField, fieldValueIssue } from "../../rules/field-values.ts";
import { currentValue } from "./live-rules.ts";
import { issueWords, problemWords } from "./page-words.ts";

/** The errors of one form. */
export interface FieldErrors {
  /**
   * Shows `message` (the field's label and a problem) under `field`; `""` clears it.
   * `problem`, when given, is the one it says. With `announce`, a new or changed message is
   * also said through the polite live region.
   */
  set(field: HTMLElement, message: string, problem?: FieldProblem | null, announce?: boolean): void;
  /** Shows S2's issue `message` about `field`, in the page's words when it knows them. */
  issue(field: HTMLElement, message: string): void;
  /**
   * Shows `message` above the form; with `forFields`, over the summary of the fields in
   * error, and only while one is left.
   */
  alert(message: string, forFields?: boolean): void;
  /** A submit failed: from now on fields are checked as they change and when left. */
  failed(): void;
  /**
   * Checks `fields` now, as when each is left, showing what is wrong; from now on fields are
   * checked as after a failed submit. Answers the first field in error, or `null`.
   */
  checkNow(fields: HTMLElement[]): HTMLElement | null;
}

/** What an error was given for: the value then, and whether it said "is required". */
interface Given {
  value: string;
  required: boolean;
}

/** The first control of a field: where its summary link moves focus. */
function firstControl(field: HTMLElement): HTMLElement | null {
  return field.querySelector<HTMLElement>("input, select, textarea, output");
}

/** A field's value as the checks see it; a file field's, the names of the files chosen. */
function checkedValue(field: HTMLElement): string {
  if (field.dataset.type !== "file") return currentValue(field);
  const files = field.querySelector<HTMLInputElement>("input[type=file]")?.files ?? [];
  return [...files].map((file) => file.name).join("|");
}

/** The field as fieldValueProblem reads it, from what fields.ts drew. */
function definitionOf(field: HTMLElement): CheckedField {
  const control = firstControl(field);
  const number = (attribute: string) =>
    control?.hasAttribute(attribute) ? Number(control.getAttribute(attribute)) : undefined;
  return {
    type: field.dataset.type ?? "",
    max_length: number("maxlength"),
    min: number("min"),
    max: number("max"),
  };
}

/** What the page finds wrong with a field now: `null` when nothing it can judge. */
function problemOf(field: HTMLElement, value: string): FieldProblem | null {
  if (field.hidden || field.dataset.calculated !== undefined) return null;
  const required = field.dataset.required === "true";
  // A file field's value is its uploads, judged by the upload and S2; only emptiness here.
  if (field.dataset.type === "file") return value === "" && required ? { code: "required" } : null;
  return fieldValueIssue(definitionOf(field), value, required) ?? null;
}

/**
 * The errors of `form`, with the summary in `#form-summary`. `reveal` shows a field before a
 * summary link focuses it (a field on another step, steps.ts).
 */
export function fieldErrors(
  form: HTMLFormElement,
  reveal: (field: HTMLElement) => void = () => {},
): FieldErrors {
  const summary = document.getElementById("form-summary") as HTMLElement;
  const alertBox = document.getElementById("form-alert") as HTMLElement;
  const links = document.getElementById("error-links") as HTMLElement;
  const news = document.getElementById("form-news") as HTMLElement;
  const given = new Map<HTMLElement, Given>();
  const items = new WeakMap<HTMLElement, HTMLLIElement>();
  let checking = false;
  let forFields = false;
  const fields = () => [...form.querySelectorAll<HTMLElement>(".field")];

  function set(
    field: HTMLElement,
    message: string,
    problem?: FieldProblem | null,
    announce = false,
  ): void {
    const box = field.querySelector(".error") as HTMLElement;
    const before = box.hidden ? "" : (box.textContent ?? "");
    if (message !== before) {
      box.textContent = message;
      box.hidden = !message;
      if (announce && message) news.textContent = message;
      // Emptied when its error goes, so that the same message later is said again.
      else if (before && news.textContent === before) news.textContent = "";
    }
    if (message) {
      given.set(field, { value: checkedValue(field), required: problem?.code === "required" });
    } else given.delete(field);
    for (const control of field.querySelectorAll("input, select, textarea")) {
      if (message) control.setAttribute("aria-invalid", "true");
      else control.removeAttribute("aria-invalid");
    }
    refresh();
  }

  /** Checks `field` again; `leaving` may show a new error, else only one it has changes. */
  function check(field: HTMLElement, leaving: boolean): void {
    const error = given.get(field);
    if (!error && !leaving) return;
    const value = checkedValue(field);
    const problem = problemOf(field, value);
    if (problem) set(field, problemWords(problem, field.dataset.label ?? ""), problem, true);
    else if (error && (field.hidden || error.required || error.value !== value)) {
      set(field, "", null, true);
    }
  }

  /** The summary's item linking to `field`: made once, so that a focused link stays. */
  function linkItem(field: HTMLElement): HTMLLIElement {
    let item = items.get(field);
    if (!item) {
      const link = document.createElement("a");
      const control = firstControl(field);
      link.href = `#${control?.id ?? ""}`;
      link.addEventListener("click", (event) => {
        event.preventDefault();
        reveal(field);
        field.scrollIntoView({ block: "start" });
        control?.focus({ preventScroll: true });
      });
      item = document.createElement("li");
      item.append(link);
      items.set(field, item);
    }
    const text = field.querySelector(".error")?.textContent ?? "";
    if (item.textContent !== text) (item.firstChild as HTMLElement).textContent = text;
    return item;
  }

  function refresh(): void {
    const wanted = fields()
      .filter((field) => !field.hidden && given.has(field))
      .map(linkItem);
    const shown = [...links.children];
    // Redrawn only when the fields in error change: a link a person has tabbed to keeps focus.
    if (wanted.length !== shown.length || wanted.some((item, n) => item !== shown[n])) {
      links.replaceChildren(...wanted);
    }
    links.hidden = wanted.length === 0;
    const stale = forFields && wanted.length === 0;
    summary.hidden = stale || !alertBox.textContent;
  }

  function alert(message: string, fieldsMessage = false): void {
    alertBox.textContent = message;
    forFields = fieldsMessage;
    refresh();
  }

  // After live-rules.ts's own listeners (added first), so requiredness is already current.
  const changed = () => {
    if (!checking) return;
    for (const field of fields()) check(field, false);
  };
  form.addEventListener("input", changed);
  form.addEventListener("change", changed);
  form.addEventListener("focusout", (event) => {
    const field = (event.target as HTMLElement).closest<HTMLElement>(".field");
    const next = event.relatedTarget as Node | null;
    // Moving between the options of one group is not leaving the field.
    if (!checking || !field || (next && field.contains(next))) return;
    check(field, true);
  });
  const failed = () => {
    checking = true;
  };
  const checkNow = (checked: HTMLElement[]) => {
    checking = true;
    for (const field of checked) check(field, true);
    return checked.find((field) => given.has(field)) ?? null;
  };
  const issue = (field: HTMLElement, message: string) => {
    const { text, problem } = issueWords(message, field.dataset.label ?? "");
    set(field, text, problem);
  };
  return { set, issue, alert, failed, checkNow };
}
