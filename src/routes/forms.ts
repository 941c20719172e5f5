import * as v from "valibot";
import type { Context } from "../domain/context.ts";
import { deleteForm, renderForm } from "../domain/flows/index.ts";
import { createForm, listForms, replaceForm } from "../domain/forms/index.ts";
import {
  cloneFormWithSettings,
  settingsSections,
  updateSettingsSection,
} from "../domain/settings/index.ts";
import { readJson } from "../http/body.ts";
import { ValidationError } from "../kernel/errors.ts";
import { parseWith, readFlag } from "../kernel/parse.ts";
import { actionResult } from "../openapi/responses.ts";
import * as answers from "../schemas/answers.ts";
import { formBody } from "../schemas/forms.ts";
import { parseSettingsSection } from "../schemas/settings.ts";
import type { RouteOperation } from "./operation.ts";
import {
  auditSourceOf,
  callerOf,
  envelope,
  guidParam,
  type RouteRequest,
  urlOf,
} from "./route-request.ts";

const formInput = { name: "FormInput", schema: formBody };

/** F2's body: a settings section (those with behaviour are checked), or a whole form. */
const formUpdate = {
  name: "FormUpdate",
  schema: v.union([
    formBody,
    ...settingsSections.flatMap(({ schema }) => (schema ? [schema] : [])),
    v.looseObject({}),
  ] as v.GenericSchema[]),
};

const formQuery = v.object({
  updateSettingsOnly: v.optional(v.picklist(["0", "1"])),
  settingsSection: v.optional(
    v.picklist([...settingsSections.map(({ name }) => name), "generalsettingsdelete"]),
  ),
});

/** Forms: F1–F5 and the create and whole-update extensions. */
export const formOperations: RouteOperation[] = [
  {
    method: "post",
    path: "/api/restricted/form",
    operationId: "createForm",
    ref: "extension",
    summary: "Create a form",
    tag: "Forms",
    auth: "account",
    body: { json: formInput, required: true },
    response: { description: "`id` is the new form's id.", schema: actionResult },
    handler: async (request, ctx) => {
      const input = parseWith(formBody, await readJson(request, ctx.limits.jsonBodyBytes));
      const form = await createForm(ctx, callerOf(request), input);
      return envelope(form.id, "Form created successfully");
    },
  },
  {
    method: "post",
    path: "/api/restricted/form/:formId/clone",
    operationId: "cloneForm",
    ref: "F1",
    summary: "Clone a form",
    tag: "Forms",
    auth: "account",
    response: { description: "`id` is the new form's id.", schema: actionResult },
    handler: async (request, ctx) => {
      const form = await cloneFormWithSettings(
        ctx,
        callerOf(request),
        guidParam(request, "formId"),
      );
      return envelope(form.id, "Form cloned successfully");
    },
  },
  {
    method: "post",
    path: "/api/restricted/form/:formId",
    documentPath: "/api/restricted/form/:formId/",
    operationId: "updateForm",
    ref: "F2, F3, extension",
    summary: "Update a settings section, delete the form, or replace the whole form",
    description:
      "With `updateSettingsOnly=1`, the body is the section named by `settingsSection` (F2), " +
      "or none with `settingsSection=generalsettingsdelete`, which deletes the form (F3). " +
      "Without it, the body is a whole form (extension).",
    tag: "Forms",
    auth: "account",
    query: formQuery,
    body: { json: formUpdate, required: false },
    response: { description: "`message` is `Form updated successfully`.", schema: actionResult },
    handler: updateForm,
  },
  {
    method: "get",
    path: "/api/restricted/user/form",
    operationId: "listForms",
    ref: "F4",
    summary: "List the caller's forms",
    tag: "Forms",
    auth: "account",
    response: {
      description: "`results` and the three arrays of form ids by access.",
      schema: { name: "FormList", schema: answers.formList },
    },
    handler: (request, ctx) => listForms(ctx, callerOf(request)),
  },
  {
    method: "get",
    path: "/api/form/:formId",
    operationId: "getForm",
    ref: "F5",
    summary: "Read a form's definition, to render it",
    tag: "Forms",
    auth: "public",
    response: {
      description: "The form's definition and the settings sections a page needs to render it.",
      schema: { name: "RenderedForm", schema: answers.renderedForm },
    },
    handler: (request, ctx) => renderForm(ctx, request.caller, guidParam(request, "formId")),
  },
];

/** F2 (a settings section), F3 (`generalsettingsdelete`) or the whole-form update. */
async function updateForm(request: RouteRequest, ctx: Context) {
  const caller = callerOf(request);
  const formId = guidParam(request, "formId");
  const url = urlOf(request);
  if (!readFlag(url, "updateSettingsOnly")) {
    const input = parseWith(formBody, await readJson(request, ctx.limits.jsonBodyBytes));
    await replaceForm(ctx, caller, formId, input);
  } else {
    const section = url.searchParams.get("settingsSection")?.toLowerCase();
    if (!section) {
      throw new ValidationError("settingsSection is required with updateSettingsOnly=1", [
        { path: "settingsSection", message: "is required" },
      ]);
    }
    if (section === "generalsettingsdelete") {
      await deleteForm(ctx, caller, formId, auditSourceOf(request));
    } else {
      const body = await readJson(request, ctx.limits.jsonBodyBytes);
      await updateSettingsSection(
        ctx,
        caller,
        formId,
        section,
        parseSettingsSection(section, body),
        auditSourceOf(request),
      );
    }
  }
  return envelope("", "Form updated successfully");
}
