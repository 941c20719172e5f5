import type { Caller } from "../auth/caller.ts";
import type { Context } from "../context.ts";
import { listEntryValues } from "./datalist-entries.ts";
import { ownsDatalist } from "./datalists.ts";
import { accessFormToSubmit, formNotFound } from "./form-access.ts";
import type { FormDefinition } from "./form-definition.ts";
import { formSummary } from "./form-record.ts";
import { renderedSections } from "./form-settings.ts";
import { formSnapshot, formVersion } from "./form-snapshots.ts";
import type { DatalistOwner } from "./submission-values.ts";

/**
 * F5: what a page needs to render the form: its definition, with the options of
 * datalist-backed fields filled in from the datalist, and the sections that drive rendering.
 * A form posted to before comes from this instance's snapshot of it when the version in its
 * counter record says it is current (form-snapshots.ts), like S2; the datalists' entries are
 * read each time.
 */
export async function renderForm(ctx: Context, caller: Caller | null, formId: string) {
  const version = await formVersion(ctx, formId);
  const snapshot = version === null ? null : await formSnapshot(ctx, formId, version);
  if (version !== null && !snapshot) throw formNotFound();
  const { form } = await accessFormToSubmit(ctx, caller, formId, snapshot ?? undefined);
  const form_configuration: Record<string, unknown> = formSummary(form).form_configuration;
  for (const section of renderedSections) {
    if (form.form_configuration[section] !== undefined) {
      form_configuration[section] = form.form_configuration[section];
    }
  }
  return {
    id: form.id,
    form_configuration,
    form_definition: await withDatalistOptions(
      ctx,
      form.form_definition,
      snapshot ?? form.owner_user_id,
    ),
  };
}

async function withDatalistOptions(
  ctx: Context,
  definition: FormDefinition,
  owner: DatalistOwner,
): Promise<FormDefinition> {
  const resolved = structuredClone(definition);
  for (const page of resolved.pages) {
    for (const field of page.fields) {
      if ("datalist_id" in field && typeof field.datalist_id === "string") {
        const owned =
          typeof owner === "string"
            ? await ownsDatalist(ctx, owner, field.datalist_id)
            : owner.ownedDatalists.includes(field.datalist_id);
        field.options = owned ? await listEntryValues(ctx, field.datalist_id) : [];
      }
    }
  }
  return resolved;
}
