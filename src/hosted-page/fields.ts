import type { FormField } from "../domain/forms/index.ts";
import { type HtmlValue, html, type SafeHtml } from "./html.ts";
import { counted, fill, type Speech, speechIn } from "./words/index.ts";

/**
 * One field of a form definition as accessible HTML: a `<label for>` on every control (a
 * `<fieldset>` and `<legend>` around radio and checkbox options), `required` with
 * `aria-required` and a visible mark, and an error slot that the page script fills with the
 * submission's validation issue for this field (named by its system name). `value`, when
 * given, is what the control starts with (a prefilled value or a hidden field's default);
 * a hidden field is an `<input type="hidden">` with no label. The page's own words (a
 * select's first option, a file field's hint, the spoken "(required)") are `speech`'s.
 */
export function renderField(field: FormField, value?: string, speech = speechIn("en")): SafeHtml {
  const name = field.unique_system_name;
  const control =
    field.type === "radio" || field.type === "checkbox"
      ? choices(field, value, speech)
      : field.type === "hidden"
        ? html`<input type="hidden" id="f-${name}" name="${name}"${valueAttribute(value)}>`
        : single(field, value, speech);
  return html`<div class="field" data-name="${name}" data-type="${field.type}" data-label="${labelText(field)}">
${control}
<p class="error" id="e-${name}" hidden></p>
</div>
`;
}

/** The name a field is shown by: its label, else its system name. */
export function labelText(field: FormField): string {
  return field.label.trim() || field.unique_system_name;
}

function requiredMark(field: FormField): HtmlValue {
  return field.required && html`<span class="mark" aria-hidden="true">*</span>`;
}

/** The attributes every single control carries. */
function common(field: FormField, describedBy: string[] = []): SafeHtml {
  const name = field.unique_system_name;
  return html`id="f-${name}" name="${name}" aria-describedby="${[...describedBy, `e-${name}`].join(" ")}"${
    field.required && html` required aria-required="true"`
  }`;
}

/** A field the page draws: every type but `hidden`. */
type ShownField = Exclude<FormField, { type: "hidden" }>;

function single(field: ShownField, value: string | undefined, speech: Speech): SafeHtml {
  const label = html`<label for="f-${field.unique_system_name}">${labelText(field)}${requiredMark(field)}</label>`;
  return html`${label}
${input(field, value, speech)}`;
}

function valueAttribute(value: string | undefined): HtmlValue {
  return value !== undefined && html` value="${value}"`;
}

function input(field: ShownField, value: string | undefined, speech: Speech): SafeHtml {
  const start = valueAttribute(value);
  switch (field.type) {
    case "text":
      return html`<input type="text" ${common(field)}${maxLength(field.max_length)}${start}>`;
    case "textarea":
      // The parser drops a newline right after the start tag: one more keeps the value's own.
      return html`<textarea rows="4" ${common(field)}${maxLength(field.max_length)}>${value?.startsWith("\n") && "\n"}${value}</textarea>`;
    case "email":
      return html`<input type="email" autocomplete="email" ${common(field)}${start}>`;
    case "number":
      return html`<input type="number" step="any" ${common(field)}${bound("min", field.min)}${bound("max", field.max)}${start}>`;
    case "date":
      return html`<input type="date" ${common(field)}${start}>`;
    case "file":
      return fileInput(field, speech);
    default:
      return html`<select ${common(field)}>
<option value="">${speech.words.choose}</option>
${(field.options ?? []).map((option) => html`<option value="${option}"${option === value && html` selected`}>${option}</option>\n`)}</select>`;
  }
}

function maxLength(value: number | undefined): HtmlValue {
  return value !== undefined && html` maxlength="${value}"`;
}

function bound(attribute: "min" | "max", value: number | undefined): HtmlValue {
  return value !== undefined && html` ${attribute}="${value}"`;
}

type FileField = Extract<FormField, { type: "file" }>;

/** A file input; the page script uploads each chosen file through S3 with a progress bar. */
function fileInput(field: FileField, speech: Speech): SafeHtml {
  const name = field.unique_system_name;
  const maxFiles = field.max_files;
  return html`<p class="hint" id="h-${name}">${fileHint(field, speech)}</p>
<input type="file" ${common(field, [`h-${name}`])}${(maxFiles ?? 2) > 1 && html` multiple`}${
    field.accept && html` accept="${field.accept.join(",")}"`
  }${maxFiles !== undefined && html` data-max-files="${maxFiles}"`}${
    field.max_file_size !== undefined && html` data-max-file-size="${field.max_file_size}"`
  }>
<ul class="uploads" id="u-${name}" aria-live="polite"></ul>`;
}

function fileHint(field: FileField, { language, words }: Speech): string {
  const count =
    field.max_files === undefined
      ? words.anyFiles
      : counted(words.upToFiles, field.max_files, language);
  const size =
    field.max_file_size === undefined
      ? ""
      : `, ${fill(words.eachAtMost, { size: byteSize(field.max_file_size, { language, words }) })}`;
  const kinds = field.accept ? ` (${field.accept.join(", ")})` : "";
  return `${count}${size}${kinds}.`;
}

/** A size for people: bytes, kB or MB (powers of 1000, as the quotas count them). */
function byteSize(bytes: number, { language, words }: Speech): string {
  if (bytes < 1000) return counted(words.bytes, bytes, language);
  const tenths = (n: number) =>
    new Intl.NumberFormat(language, { useGrouping: false, maximumFractionDigits: 1 }).format(
      Math.floor(n) / 10,
    );
  if (bytes < 1_000_000) return fill(words.kilobytes, { size: tenths(bytes / 100) });
  return fill(words.megabytes, { size: tenths(bytes / 100_000) });
}

type ChoiceField = Extract<FormField, { type: "select" | "radio" | "checkbox" }>;

/** Radio buttons or checkboxes, one `<label for>` each, grouped under a legend. */
function choices(field: ChoiceField, value: string | undefined, speech: Speech): SafeHtml {
  const name = field.unique_system_name;
  const type = field.type === "radio" ? "radio" : "checkbox";
  const options = field.options ?? [];
  const chosen = new Set(value === undefined ? [] : type === "radio" ? [value] : value.split("|"));
  // A radio group takes aria-required; a checkbox group has no role that does, so its legend
  // says it in words for screen readers.
  const group =
    type === "radio" && html` role="radiogroup"${field.required && html` aria-required="true"`}`;
  const spoken =
    type === "checkbox" &&
    field.required &&
    html`<span class="sr-only"> ${speech.words.script.required}</span>`;
  const items = options.map(
    (option, index) => html`<div class="choice">
<input type="${type}" id="f-${name}-${index}" name="${name}" value="${option}" aria-describedby="e-${name}"${
      type === "radio" && field.required && html` required`
    }${chosen.has(option) && html` checked`}>
<label for="f-${name}-${index}">${option}</label>
</div>
`,
  );
  return html`<fieldset class="choices"${group}>
<legend>${labelText(field)}${requiredMark(field)}${spoken}</legend>
${items}</fieldset>`;
}
