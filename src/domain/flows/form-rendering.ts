import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import { listEntryValues } from "../datalists/datalist-entries.ts";
import { ownsDatalist } from "../datalists/datalists.ts";
import { formNotFound, readForm } from "../forms/form-access.ts";
import type { FormDefinition } from "../forms/form-definition.ts";
import { type FormRecord, formSummary } from "../forms/form-record.ts";
import { formSnapshot, readFormCounter, versionOf } from "../forms/form-snapshots.ts";
import { compileRules, type FormRules } from "../settings/form-rules.ts";
import {
  type PageLanguage,
  pageLanguageOf,
  prefillFieldsOf,
} from "../settings/sections/general.ts";
import { type ClosedReason, closedReason } from "../settings/sections/quantity-limit.ts";
import { renderedSections } from "../settings/sections/registry.ts";
import { embedOriginsOf } from "../settings/sections/security.ts";
import { accessFormToSubmit } from "../settings/submit-access.ts";

/** Reads a datalist's values at most once per request; none when the owner lacks it. */
type DatalistValues = (datalistId: string) => Promise<string[]>;

/**
 * F5: what a page needs to render the form: its definition, with the options of
 * datalist-backed and dynamic fields filled in from their datalist, and the sections that
 * drive rendering, each as its module renders it (sections/registry.ts): each cascading
 * rule's datalists replaced by their values, each limited option with what is `remaining` of
 * it (docs/design.md §11), and the fields the page may fill in from its address (`settings.
 * prefill_fields`, only when there are some: §21). A form posted to before comes from this instance's snapshot of it
 * when the version in its counter record says it is current (form-snapshots.ts), like S2,
 * and so do the datalists its owner is known to hold; the datalists' entries are read each
 * time.
 */
export async function renderForm(ctx: Context, caller: Caller | null, formId: string) {
  return (await renderFormPage(ctx, caller, formId)).rendered;
}

/**
 * F5's answer for the hosted page (`rendered`), with why S2 would refuse any post to the
 * form now (`closed`: past `closes_at_utc` or at `max_total_submissions`; `null` while it
 * takes posts), judged as S2 judges it, from the same form and counter (docs/design.md §21),
 * the page's language its `generalsettings.language` names (`null` when none is set, or the
 * stored one is not spoken: the page then follows the request's), and `embedOrigins`, the
 * sites that may frame the page (`securitysettings.embed_origins`; `undefined`: any). F5
 * itself leaves these out: its answer stays as it was.
 */
export async function renderFormPage(
  ctx: Context,
  caller: Caller | null,
  formId: string,
): Promise<{
  rendered: RenderedForm;
  closed: ClosedReason | null;
  language: PageLanguage | null;
  embedOrigins: string[] | undefined;
}> {
  const counter = await readFormCounter(ctx, formId);
  const version = versionOf(counter);
  const snapshot = version === null ? null : await formSnapshot(ctx, formId, version);
  if (version !== null && !snapshot) throw formNotFound();
  const { form } = await accessFormToSubmit(ctx, caller, formId, snapshot ?? undefined);
  const summary = formSummary(form).form_configuration;
  const prefill = prefillFieldsOf(form.form_configuration.settings, form.form_definition);
  if (prefill.length) summary.settings.prefill_fields = prefill;
  const form_configuration: Record<string, unknown> = summary;
  const rules = compileRules(form);
  const held = new Map<string, Promise<string[]>>();
  const datalistValues: DatalistValues = (id) => {
    let read = held.get(id);
    if (!read) {
      const owned = snapshot?.ownedDatalists.includes(id)
        ? Promise.resolve(true)
        : ownsDatalist(ctx, form.owner_user_id, id);
      read = owned.then((owns) => (owns ? listEntryValues(ctx, id) : []));
      held.set(id, read);
    }
    return read;
  };
  const counts = counter?.record.counts ?? {};
  for (const { name, rendered } of renderedSections) {
    const stored = form.form_configuration[name];
    const value = await rendered?.value({ stored, rules, counts, datalistValues });
    if (value !== undefined) form_configuration[name] = value;
  }
  const rendered = {
    id: form.id,
    form_configuration,
    form_definition: await withDatalistOptions(form.form_definition, rules, datalistValues),
  };
  const closed = closedReason(form, ctx.now(), counts);
  return { rendered, closed, ...pageSettingsOf(form) };
}

/** The page's settings of `form` that F5 never shows: its language and framing rule. */
function pageSettingsOf(form: FormRecord) {
  return {
    language: pageLanguageOf(form.form_configuration.settings.language),
    embedOrigins: embedOriginsOf(form),
  };
}

/**
 * The language and framing rule of the page of a form that exists but that the page refuses
 * to show (disabled, sign-in required: docs/design.md §21), as {@link renderFormPage} gives
 * them; `undefined` for a form that does not exist. Read again, as only these pages need it.
 */
export async function refusedPageSettings(
  ctx: Context,
  formId: string,
): Promise<ReturnType<typeof pageSettingsOf> | undefined> {
  const entry = await readForm(ctx, formId);
  return entry ? pageSettingsOf(entry.form) : undefined;
}

/** F5's answer: a form's definition, with datalist options filled in, and its settings. */
export interface RenderedForm {
  id: string;
  form_configuration: Record<string, unknown>;
  form_definition: FormDefinition;
}

async function withDatalistOptions(
  definition: FormDefinition,
  rules: FormRules,
  values: DatalistValues,
): Promise<FormDefinition> {
  const resolved = structuredClone(definition);
  for (const page of resolved.pages) {
    for (const field of page.fields) {
      const dynamic = rules.dynamic.get(field.unique_system_name);
      const datalistId = "datalist_id" in field ? field.datalist_id : undefined;
      if (dynamic) field.options = await values(dynamic);
      else if (typeof datalistId === "string") field.options = await values(datalistId);
    }
  }
  return resolved;
}
