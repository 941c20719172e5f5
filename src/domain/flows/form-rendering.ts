import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import { listEntryValues } from "../datalists/datalist-entries.ts";
import { ownsDatalist } from "../datalists/datalists.ts";
import { accessFormToSubmit, formNotFound } from "../forms/form-access.ts";
import type { FormDefinition } from "../forms/form-definition.ts";
import { formSummary } from "../forms/form-record.ts";
import { formSnapshot, readFormCounter, versionOf } from "../forms/form-snapshots.ts";
import { compileRules, type FormRules } from "../settings/form-rules.ts";
import { renderedSections } from "../settings/form-settings.ts";
import { inventoryCount } from "../settings/inventory.ts";

/** Reads a datalist's values at most once per request; none when the owner lacks it. */
type DatalistValues = (datalistId: string) => Promise<string[]>;

/**
 * F5: what a page needs to render the form: its definition, with the options of
 * datalist-backed and dynamic fields filled in from their datalist; the sections that drive
 * rendering, with each cascading rule's datalists replaced by their values; and each limited
 * option with what is `remaining` of it (docs/design.md §11). A form posted to before comes from
 * this instance's snapshot of it when the version in its counter record says it is current
 * (form-snapshots.ts), like S2, and so do the datalists its owner is known to hold; the
 * datalists' entries are read each time.
 */
export async function renderForm(ctx: Context, caller: Caller | null, formId: string) {
  const counter = await readFormCounter(ctx, formId);
  const version = versionOf(counter);
  const snapshot = version === null ? null : await formSnapshot(ctx, formId, version);
  if (version !== null && !snapshot) throw formNotFound();
  const { form } = await accessFormToSubmit(ctx, caller, formId, snapshot ?? undefined);
  const form_configuration: Record<string, unknown> = formSummary(form).form_configuration;
  for (const section of renderedSections) {
    if (form.form_configuration[section] !== undefined) {
      form_configuration[section] = form.form_configuration[section];
    }
  }
  const rules = compileRules(form);
  const held = new Map<string, Promise<string[]>>();
  const values: DatalistValues = (id) => {
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
  if (rules.cascades.size) {
    form_configuration.privatedatalistlogicsettings = { rules: await cascadesOf(rules, values) };
  }
  if (rules.inventory.length) {
    form_configuration.quantitylimitsettings = {
      inventory: inventoryOf(counter?.record.counts ?? {}, rules),
    };
  }
  return {
    id: form.id,
    form_configuration,
    form_definition: await withDatalistOptions(form.form_definition, rules, values),
  };
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

/** The cascading rules with every branch a list of options. */
async function cascadesOf(rules: FormRules, values: DatalistValues) {
  const rendered = [];
  for (const [name, cascade] of rules.cascades) {
    const options_by_value: Record<string, string[]> = {};
    for (const [value, branch] of Object.entries(cascade.optionsByValue)) {
      options_by_value[value] = Array.isArray(branch) ? branch : await values(branch.datalist_id);
    }
    rendered.push({ unique_system_name: name, depends_on: cascade.dependsOn, options_by_value });
  }
  return rendered;
}

/** Each limited option with what is left of it, from the form's counts as read. */
function inventoryOf(counts: Readonly<Record<string, number>>, rules: FormRules) {
  return rules.inventory.map((item) => {
    const taken = counts[inventoryCount(item.unique_system_name, item.option)] ?? 0;
    return { ...item, remaining: Math.max(0, item.quantity - taken) };
  });
}
