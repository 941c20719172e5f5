import * as v from "valibot";
import {
  addFormUser,
  listFormUsers,
  type RoleFlags,
  removeFormUser,
  roleNames,
  updateFormUser,
} from "../domain/forms/index.ts";
import { parseWith, readFlag } from "../kernel/parse.ts";
import { actionResult } from "../openapi/responses.ts";
import * as answers from "../schemas/answers.ts";
import { emailSchema } from "../schemas/common.ts";
import type { RouteOperation } from "./operation.ts";
import { auditSourceOf, callerOf, envelope, guidParam, urlOf } from "./route-request.ts";

const base = "/api/restricted/form/:formId/usersecurity";

const flag = v.optional(v.picklist(["0", "1"]));
const roleFlagsQuery = Object.fromEntries(roleNames.map((role) => [role, flag]));

/** Form users: U1–U4. Roles travel as `0`/`1` query flags. */
export const formUserOperations: RouteOperation[] = [
  {
    method: "get",
    path: base,
    operationId: "listFormUsers",
    ref: "U1",
    summary: "List a form's users",
    tag: "Form users",
    auth: "account",
    response: {
      description: "`results`, `form_document_basic` and `granted_form_roles`.",
      schema: { name: "FormUserList", schema: answers.formUserList },
    },
    handler: (request, ctx) => listFormUsers(ctx, callerOf(request), guidParam(request, "formId")),
  },
  {
    method: "post",
    path: base,
    operationId: "addFormUser",
    ref: "U2",
    summary: "Grant roles on a form to an e-mail address",
    tag: "Form users",
    auth: "account",
    query: v.object({ collaborator_email: emailSchema, ...roleFlagsQuery }),
    response: {
      description: "`message` is `Form collaborator added successfully`.",
      schema: actionResult,
    },
    handler: async (request, ctx) => {
      const formId = guidParam(request, "formId");
      const url = urlOf(request);
      const email = parseWith(
        v.object({ collaborator_email: emailSchema }),
        { collaborator_email: url.searchParams.get("collaborator_email") ?? undefined },
        "collaborator_email must be an e-mail address",
      ).collaborator_email;
      const given = roleFlags(url);
      const roles = Object.fromEntries(roleNames.map((r) => [r, given[r] ?? false])) as RoleFlags;
      const source = auditSourceOf(request);
      const record = await addFormUser(ctx, callerOf(request), formId, email, roles, source);
      return envelope(record.id, "Form collaborator added successfully");
    },
  },
  {
    method: "post",
    path: `${base}/:userSecurityId`,
    operationId: "updateFormUser",
    ref: "U3",
    summary: "Change a form user's roles",
    tag: "Form users",
    auth: "account",
    query: v.object(roleFlagsQuery),
    response: {
      description: "`message` is `Form collaborator updated successfully`.",
      schema: actionResult,
    },
    handler: async (request, ctx) => {
      const id = guidParam(request, "userSecurityId");
      await updateFormUser(
        ctx,
        callerOf(request),
        guidParam(request, "formId"),
        id,
        roleFlags(urlOf(request)),
        auditSourceOf(request),
      );
      return envelope(id, "Form collaborator updated successfully");
    },
  },
  {
    method: "delete",
    // The interface's name, which the errors about this parameter use.
    path: `${base}/:userSecurityDocumentId`,
    documentPath: `${base}/:userSecurityId`,
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
    handler: async (request, ctx) => {
      const formId = guidParam(request, "formId");
      const id = guidParam(request, "userSecurityDocumentId");
      await removeFormUser(ctx, callerOf(request), formId, id, auditSourceOf(request));
      return envelope(id, "Form collaborator removed successfully");
    },
  },
];

function roleFlags(url: URL): Partial<RoleFlags> {
  const flags: Partial<RoleFlags> = {};
  for (const role of roleNames) {
    const value = readFlag(url, role);
    if (value !== undefined) flags[role] = value;
  }
  return flags;
}
