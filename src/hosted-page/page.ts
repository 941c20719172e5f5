import type { renderForm } from "../domain/flows/index.ts";
import {
  type ClosedReason,
  closedMessages,
  defaultThanksMessage,
  type LiveFeature,
  ownsThanksMessage,
  renderedBotProtection,
  settingsSections,
} from "../domain/settings/index.ts";
import { prefilledValues } from "../domain/submissions/index.ts";
import { calculatedField } from "./calculated-field.ts";
import { clientScript } from "./client-bundle.ts";
import { renderField } from "./fields.ts";
import { html, type SafeHtml, trusted } from "./html.ts";
import { pageStyles } from "./styles.ts";
import { fill, type SentWords, type Speech, speechIn } from "./words/index.ts";

/** What F5 answers: the definition with datalist options filled in, and its settings. */
export type RenderedForm = Awaited<ReturnType<typeof renderForm>>;

interface PageSettings {
  form_name?: string;
  form_type?: string;
  form_description?: string;
  prefill_fields?: string[];
}

/**
 * The hosted form page (extension): the whole form as one HTML document, each definition
 * page a `<section>` under its title, with the page script and style sheet inline under
 * `nonce`. A form of several pages (unless its `form_type` is `classicsingle`) is filled in
 * as steps, one page at a time (docs/design.md §21): the server draws the first step shown,
 * the step indicator and Back, Next and Submit; the script moves between them. The form
 * validates on the server only (`novalidate`): S2's issues are shown beside their fields, so
 * a person sees one kind of message whatever went wrong. A screen reader hears the summary's
 * sentence (`role="alert"`) after a failed submit, and each error that appears or changes as
 * the person edits, once, through `#form-news` (polite).
 *
 * With bot protections on (docs/design.md §6), the form carries `pageMark`, the signed time
 * it was served, that the script sends with S2 (`Formwork-Page`), a honeypot field hidden
 * from people and assistive technology, whose value the script sends as
 * `Formwork-Honeypot`, and `data-challenge` when S2 and S3 need a solved challenge.
 *
 * The fields start with the values `query` (the page address's) gives for the fields the
 * form's `prefill_fields` names, when they fit, and hidden fields with their default
 * (docs/design.md §21): drawn as value attributes, escaped like every other value.
 *
 * `embedOrigins`, the sites that may frame the page (none given: any), go to the script as
 * `data-embed-origins`, the origins its messages to the framing page may go to. The page's
 * own words are `speech`'s; the script gets its language's (`#formwork-words`).
 */
export function formPage(
  rendered: RenderedForm,
  nonce: string,
  pageMark?: string,
  query = new URLSearchParams(),
  speech = speechIn("en"),
  embedOrigins?: readonly string[],
): string {
  const settings = (rendered.form_configuration.settings ?? {}) as PageSettings;
  const values = prefilledValues(rendered.form_definition, settings.prefill_fields ?? [], query);
  const { words } = speech;
  const name = settings.form_name || words.formName;
  const rules = liveRules(rendered);
  const calculated = new Set(
    (rules.calculations ?? []).map(
      (item) => (item as { unique_system_name: string }).unique_system_name,
    ),
  );
  const definitionPages = rendered.form_definition.pages;
  const stepped = definitionPages.length > 1 && settings.form_type !== "classicsingle";
  const pages = definitionPages.map((page, index) => {
    const heading =
      page.title && html`<h2 id="p-${index}"${stepped && html` tabindex="-1"`}>${page.title}</h2>`;
    const fields = page.fields.map((field) =>
      calculated.has(field.unique_system_name)
        ? calculatedField(field)
        : renderField(field, values.get(field.unique_system_name), speech),
    );
    const step =
      stepped && html` class="step" data-step="${index + 1}"${index > 0 && html` hidden`}`;
    return html`<section${step}${page.title && html` aria-labelledby="p-${index}"`}>
${heading}
${fields}</section>
`;
  });
  const buttons = stepped
    ? stepButtons(speech)
    : html`<button type="submit">${words.submit}</button>\n`;
  return document(
    name,
    nonce,
    speech,
    html`<h1 id="form-title">${name}</h1>
${settings.form_description && html`<p class="description">${settings.form_description}</p>`}
<form id="formwork-form" data-form-id="${rendered.id}"${botAttributes(rendered, pageMark)}${embedOrigins && html` data-embed-origins="${embedOrigins.join(" ")}"`} aria-labelledby="form-title" novalidate>
<div class="alert" id="form-summary" hidden>
<p id="form-alert" role="alert"></p>
<ul class="error-links" id="error-links" aria-label="${words.fieldsToCorrect}"></ul>
</div>
<p class="sr-only" id="form-news" aria-live="polite"></p>
${stepped && stepIndicator(definitionPages, speech)}${pages}${honeypot(rendered)}${buttons}</form>
<div class="thanks" id="thanks" role="status" tabindex="-1" hidden></div>
<script type="application/json" id="formwork-rules">${trusted(scriptJson(rules))}</script>
<script type="application/json" id="formwork-words">${trusted(scriptJson(sentWords(rendered, speech)))}</script>
<script nonce="${nonce}">${trusted(clientScript)}</script>`,
  );
}

/**
 * The steps of a form drawn one definition page at a time (docs/design.md §21): a list of the
 * pages by title, the one shown marked `aria-current="step"` by the script, and "Step n of m"
 * in a polite live region. The script hides the pages conditions hide, here and in the count.
 */
function stepIndicator(pages: RenderedForm["form_definition"]["pages"], speech: Speech): SafeHtml {
  const { words } = speech;
  const items = pages.map(
    (page, index) =>
      html`<li data-step="${index + 1}"${index === 0 && html` aria-current="step"`}>${page.title || fill(words.stepName, { step: index + 1 })}</li>\n`,
  );
  const count = fill(words.stepOf, { step: 1, count: pages.length });
  return html`<nav class="steps" aria-label="${words.steps}">
<ol>
${items}</ol>
<p class="step-count" id="step-count" data-template="${words.stepOf}" aria-live="polite">${count}</p>
</nav>
`;
}

/** Back, Next and Submit of a stepped form: the script shows the ones that apply. */
function stepButtons({ words }: Speech): SafeHtml {
  return html`<div class="step-buttons">
<button type="button" class="secondary" id="step-back" hidden>${words.back}</button>
<button type="button" id="step-next">${words.next}</button>
<button type="submit" hidden>${words.submit}</button>
</div>
`;
}

function botAttributes(rendered: RenderedForm, pageMark: string | undefined): SafeHtml | "" {
  const { challenge } = renderedBotProtection(rendered.form_configuration);
  return html`${pageMark ? html` data-page-mark="${pageMark}"` : ""}${challenge ? html` data-challenge` : ""}`;
}

/**
 * The honeypot: a field a person neither sees nor reaches (off-screen, `aria-hidden`, out
 * of the tab order, never autofilled), named to tempt a bot filling every input.
 */
function honeypot(rendered: RenderedForm): SafeHtml | "" {
  if (!renderedBotProtection(rendered.form_configuration).honeypot) return "";
  return html`<div class="hp" aria-hidden="true"><label for="hp-website">Website</label><input type="text" id="hp-website" name="website" tabindex="-1" autocomplete="off"></div>
`;
}

/**
 * What the page script applies live (client/live-rules.ts), by feature: the items each
 * section that feeds one gives it from F5's value.
 */
function liveRules(rendered: RenderedForm): Partial<Record<LiveFeature, unknown[]>> {
  const config: Record<string, unknown> = rendered.form_configuration;
  const rules: Partial<Record<LiveFeature, unknown[]>> = {};
  for (const { name, live } of settingsSections) {
    if (!live || config[name] === undefined) continue;
    const items = live.items(config[name]);
    rules[live.feeds] = [...(rules[live.feeds] ?? []), ...(Array.isArray(items) ? items : [])];
  }
  return rules;
}

/**
 * What the script says, in the page's language (words/page-words.ts `SentWords`): S2's
 * default thanks sentence is said in it only when the owner wrote no message of their own,
 * which is never translated.
 */
function sentWords(rendered: RenderedForm, { words }: Speech): SentWords {
  const answers: Record<string, string> = {
    [closedMessages.closed]: words.closed.closed,
    [closedMessages.sold_out]: words.closed.sold_out,
  };
  if (!ownsThanksMessage(rendered.form_configuration)) {
    answers[defaultThanksMessage] = words.script.thanks;
  }
  return { ...words.script, answers };
}

/** A value as JSON safe inside a `<script>` element. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/</g, "\\u003c");
}

/**
 * The page of a form that S2 would refuse any post to (docs/design.md §21): its name and S2's
 * own sentence for why, with no form, no rules and no script, so that a visitor learns no
 * more than a post would tell them (not when it closed, nor how many it took). In English
 * the sentence is S2's; in another language, the same said in it (`speech`).
 */
export function closedPage(
  rendered: RenderedForm,
  reason: ClosedReason,
  nonce: string,
  speech = speechIn("en"),
): string {
  const settings = (rendered.form_configuration.settings ?? {}) as PageSettings;
  const name = settings.form_name || speech.words.formName;
  return document(
    name,
    nonce,
    speech,
    html`<h1>${name}</h1>\n<p class="notice" id="closed-notice">${speech.words.closed[reason]}</p>`,
  );
}

/** A page that says why the form cannot be shown (missing, disabled, sign-in needed). */
export function messagePage(
  title: string,
  message: string,
  nonce: string,
  speech = speechIn("en"),
): string {
  return document(title, nonce, speech, html`<h1>${title}</h1>\n<p>${message}</p>`);
}

function document(title: string, nonce: string, speech: Speech, main: SafeHtml): string {
  return html`<!doctype html>
<html lang="${speech.language}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${title}</title>
<style nonce="${nonce}">${trusted(pageStyles)}</style>
</head>
<body>
<main>
${main}
</main>
</body>
</html>
`.value;
}
