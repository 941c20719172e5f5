/**
 * HTML built by a tagged template that escapes every interpolated value unless it is already
 * {@link SafeHtml}, so that a value from a form definition can never become markup.
 * @module
 */

/** Markup that is already safe: built by {@link html} or escaped by {@link escapeHtml}. */
export class SafeHtml {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

/** A value that may be interpolated: escaped text, safe markup, or a list of either. */
export type HtmlValue = SafeHtml | string | number | boolean | null | undefined | HtmlValue[];

const entities: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

/** Escapes text for an element's content or a quoted attribute value. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => entities[character] ?? character);
}

function render(value: HtmlValue): string {
  if (value instanceof SafeHtml) return value.value;
  if (Array.isArray(value)) return value.map(render).join("");
  // `null`, `undefined` and `false` render nothing, so that `${cond && html`…`}` reads well.
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}

/** The tag: `html\`<p>${text}</p>\`` escapes `text`; nested `html` results stay markup. */
export function html(strings: TemplateStringsArray, ...values: HtmlValue[]): SafeHtml {
  let out = strings[0] ?? "";
  values.forEach((value, index) => {
    out += render(value) + (strings[index + 1] ?? "");
  });
  return new SafeHtml(out);
}

/** Marks text written by this project (the style sheet, the script) as markup; never data. */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}
