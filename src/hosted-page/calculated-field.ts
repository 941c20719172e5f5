import type { FormField } from "../domain/forms/index.ts";
import { labelText } from "./fields.ts";
import { html, type SafeHtml } from "./html.ts";

/**
 * A calculated field (docs/design.md §11) as the page shows it: its result in an `<output>`
 * under its label, which the page script fills in live, never an input a person could
 * change. S2 computes the value again on submit, so the page never sends it.
 */
export function calculatedField(field: FormField): SafeHtml {
  const name = field.unique_system_name;
  return html`<div class="field" data-name="${name}" data-type="${field.type}" data-label="${labelText(field)}" data-calculated>
<label for="f-${name}">${labelText(field)}</label>
<output id="f-${name}" name="${name}" class="calculated" aria-describedby="e-${name}"></output>
<p class="error" id="e-${name}" hidden></p>
</div>
`;
}
