import * as v from "valibot";
import { roleNames } from "../domain/forms/index.ts";
import { settingsSections } from "../domain/settings/index.ts";
import * as answers from "../schemas/answers.ts";
import { emailSchema } from "../schemas/common.ts";
import { formBody } from "../schemas/forms.ts";
import type { Operation } from "./operation.ts";
import { actionResult } from "./responses.ts";

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

const flag = v.optional(v.picklist(["0", "1"]));
const roleFlags = Object.fromEntries(roleNames.map((role) => [role, flag]));

/** Forms (F1–F5, create and whole update) and form users (U1–U4). */
export const formOperations: Operation[] = [
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
  },
  {
    method: "post",
    path: "/api/restricted/form/:formId/",
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
  },
  {
    method: "get",
    path: "/api/restricted/form/:formId/usersecurity",
    operationId: "listFormUsers",
    ref: "U1",
    summary: "List a form's users",
    tag: "Form users",
    auth: "account",
    response: {
      description: "`results`, `form_document_basic` and `granted_form_roles`.",
      schema: { name: "FormUserList", schema: answers.formUserList },
    },
  },
  {
    method: "post",
    path: "/api/restricted/form/:formId/usersecurity",
    operationId: "addFormUser",
    ref: "U2",
    summary: "Grant roles on a form to an e-mail address",
    tag: "Form users",
    auth: "account",
    query: v.object({ collaborator_email: emailSchema, ...roleFlags }),
    response: {
      description: "`message` is `Form collaborator added successfully`.",
      schema: actionResult,
    },
  },
  {
    method: "post",
    path: "/api/restricted/form/:formId/usersecurity/:userSecurityId",
    operationId: "updateFormUser",
    ref: "U3",
    summary: "Change a form user's roles",
    tag: "Form users",
    auth: "account",
    query: v.object(roleFlags),
    response: {
      description: "`message` is `Form collaborator updated successfully`.",
      schema: actionResult,
    },
  },
  {
    method: "delete",
    path: "/api/restricted/form/:formId/usersecurity/:userSecurityId",
    operationId: "removeFormUser",
    ref: "U4",
    summary: "Remove a form user",
    description: "The interface names this path's last parameter `userSecurityDocumentId`.",
    tag: "Form users",
    auth: "account",
    response: {
      description: "`message` is `Form collaborator removed successfully`.",
      schema: actionResult,
    },
  },
];
