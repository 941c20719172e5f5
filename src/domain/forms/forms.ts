import { NotFoundError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import { createdAt } from "../../kernel/timestamps.ts";
import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import { withQuota } from "../quotas/quotas.ts";
import { collections } from "../records/collections.ts";
import { accessForm, type FormAccess, requireRole } from "./form-access.ts";
import { checkDefinition, type FormDefinition } from "./form-definition.ts";
import { type FormRecord, type FormSettings, formSummary } from "./form-record.ts";
import { createOwnerRecord } from "./form-users.ts";
import { saveForm } from "./form-writes.ts";
import { formIdsOf } from "./memberships.ts";

/** The version of the form definition format this service writes. */
export const formSystemVersion = 1;

/** What creating or replacing a form takes (the form extension body of docs/design.md §4). */
export interface FormInput {
  form_configuration: {
    settings: Pick<FormSettings, "form_name" | "form_description" | "form_type">;
  };
  form_definition: FormDefinition;
}

/** Creates a form owned by the caller. @returns the new form. */
export async function createForm(
  ctx: Context,
  caller: Caller,
  input: FormInput,
): Promise<FormRecord> {
  await checkDefinition(ctx, input.form_definition, caller.userId);
  const settings = { ...input.form_configuration.settings, form_system_version: formSystemVersion };
  return insertForm(ctx, caller, { settings }, input.form_definition);
}

/** Replaces a form's name, type and definition; other settings stay. Owner or editor. */
export async function replaceForm(ctx: Context, caller: Caller, formId: string, input: FormInput) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_form_editor");
  await checkDefinition(ctx, input.form_definition, access.form.owner_user_id);
  const { settings } = access.form.form_configuration;
  const next = { ...settings, ...input.form_configuration.settings };
  if (input.form_configuration.settings.form_description === undefined)
    delete next.form_description;
  await saveForm(ctx, access, (form) => {
    form.form_configuration.settings = next;
    form.form_definition = input.form_definition;
  });
}

/**
 * Copies a form's configuration and definition into a new form owned by the caller.
 * `beforeInsert` writes what must exist before the new form does (its settings' records).
 */
export async function cloneForm(
  ctx: Context,
  caller: Caller,
  formId: string,
  beforeInsert?: (form: FormRecord) => Promise<void>,
): Promise<FormRecord> {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_form_editor");
  const { form_configuration, form_definition } = structuredClone(access.form);
  return insertForm(ctx, caller, form_configuration, form_definition, beforeInsert);
}

async function insertForm(
  ctx: Context,
  caller: Caller,
  form_configuration: FormRecord["form_configuration"],
  form_definition: FormDefinition,
  beforeInsert?: (form: FormRecord) => Promise<void>,
): Promise<FormRecord> {
  const form: FormRecord = {
    id: newId(),
    owner_user_id: caller.userId,
    form_configuration,
    form_definition,
    ...createdAt(ctx.now()),
  };
  await withQuota(ctx, caller.userId, "total_forms", 1, async () => {
    await beforeInsert?.(form);
    await createOwnerRecord(ctx, form);
    return ctx.store.create(collections.forms, form.id, form);
  });
  return form;
}

/** F4: the forms the caller owns or holds a role on, with the ids by role. */
export async function listForms(ctx: Context, caller: Caller) {
  const results = [];
  const edit: string[] = [];
  const accountManagement: string[] = [];
  const fullReporting: string[] = [];
  for (const formId of await formIdsOf(ctx, caller)) {
    // The index may name a form that was deleted or a grant that was revoked since.
    const access = await accessForm(ctx, caller, formId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (!access) continue;
    results.push(formSummary(access.form));
    if (has(access, "has_form_editor")) edit.push(formId);
    if (has(access, "has_account_management")) accountManagement.push(formId);
    if (has(access, "has_reporting_full")) fullReporting.push(formId);
  }
  return {
    results,
    accessible_form_ids_edit_access: edit,
    accessible_form_ids_account_management_access: accountManagement,
    accessible_form_ids_full_reporting_access: fullReporting,
  };
}

function has(access: FormAccess, role: Parameters<typeof requireRole>[1]): boolean {
  return access.isOwner || access.roles.has(role);
}
