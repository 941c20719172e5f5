/**
 * Forms and who may reach them: the form record and its definition, collaborators and their
 * roles (every role check is made here, never in a route), the membership index behind F4,
 * the snapshots S2 and F5 read, and writing forms (F1, F4 and the extensions). Deleting a
 * form (F3) and rendering it (F5) span concepts and are flows (../flows).
 */
export { accessFormToManage, accessFormToReport } from "./form-access.ts";
export { type FormField, formDefinitionSchema, systemNamePattern } from "./form-definition.ts";
export { formTypes } from "./form-record.ts";
export { addFormUser, listFormUsers, removeFormUser, updateFormUser } from "./form-users.ts";
export { cloneForm, createForm, listForms, replaceForm } from "./forms.ts";
export { type RoleFlags, roleNames } from "./roles.ts";
