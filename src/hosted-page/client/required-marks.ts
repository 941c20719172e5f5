/**
 * A field's required mark as the conditions change (docs/design.md §21): a field is required
 * while its own flag is set or a `require` rule holds, as S2 decides it on submit. The mark
 * is what fields.ts draws for a required field: the asterisk in its label or legend, `required`
 * and `aria-required` on its control (on the group of radio buttons), and the spoken
 * "(required)" of a group of checkboxes, in the page's words. `data-required` keeps the state
 * for the live checks.
 */
import { words } from "./page-words.ts";

/** Whether each field was drawn required (its own flag), read once. */
const ownFlag = new WeakMap<HTMLElement, boolean>();

/**
 * Marks `field` (a `.field` of the page) required if its own flag or `byRule` says so and it
 * is not `hidden` (S2 requires no hidden field).
 */
export function markRequired(field: HTMLElement, byRule: boolean, hidden: boolean): void {
  let own = ownFlag.get(field);
  if (own === undefined) {
    own = field.querySelector(".mark") !== null;
    ownFlag.set(field, own);
  }
  const required = (own || byRule) && !hidden && field.dataset.calculated === undefined;
  if (field.dataset.required === String(required)) return;
  field.dataset.required = String(required);
  const caption = field.querySelector("legend, label");
  caption?.querySelector(".mark")?.remove();
  caption?.querySelector(".sr-only")?.remove();
  const type = field.dataset.type;
  if (required && caption) {
    const mark = document.createElement("span");
    mark.className = "mark";
    mark.setAttribute("aria-hidden", "true");
    mark.textContent = "*";
    caption.append(mark);
    if (type === "checkbox") {
      // A group of checkboxes has no role that takes aria-required: its legend says it.
      const spoken = document.createElement("span");
      spoken.className = "sr-only";
      spoken.textContent = ` ${words.required}`;
      caption.append(spoken);
    }
  }
  const group = type === "radio" ? field.querySelector("fieldset") : null;
  if (group) toggle(group, "aria-required", required && "true");
  if (type === "checkbox") return;
  for (const control of field.querySelectorAll("input, select, textarea")) {
    toggle(control, "required", required && "");
    if (type !== "radio") toggle(control, "aria-required", required && "true");
  }
}

function toggle(element: Element, attribute: string, value: string | false): void {
  if (value === false) element.removeAttribute(attribute);
  else element.setAttribute(attribute, value);
}
