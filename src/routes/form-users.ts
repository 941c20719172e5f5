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
import { emailSchema } from "../schemas/common.ts";
import { callerOf, envelope, guidParam, type ServiceRouter, urlOf } from "./route-request.ts";

/** Form users: U1–U4. Roles travel as `0`/`1` query flags. */
export function formUserRoutes(router: ServiceRouter): void {
  const base = "/api/restricted/form/:formId/usersecurity";
  router
    .get(base, (request, ctx) =>
      listFormUsers(ctx, callerOf(request), guidParam(request, "formId")),
    )
    .post(base, async (request, ctx) => {
      const formId = guidParam(request, "formId");
      const url = urlOf(request);
      const email = parseWith(
        v.object({ collaborator_email: emailSchema }),
        { collaborator_email: url.searchParams.get("collaborator_email") ?? undefined },
        "collaborator_email must be an e-mail address",
      ).collaborator_email;
      const given = roleFlags(url);
      const roles = Object.fromEntries(roleNames.map((r) => [r, given[r] ?? false])) as RoleFlags;
      const record = await addFormUser(ctx, callerOf(request), formId, email, roles);
      return envelope(record.id, "Form collaborator added successfully");
    })
    .post(`${base}/:userSecurityId`, async (request, ctx) => {
      const id = guidParam(request, "userSecurityId");
      await updateFormUser(
        ctx,
        callerOf(request),
        guidParam(request, "formId"),
        id,
        roleFlags(urlOf(request)),
      );
      return envelope(id, "Form collaborator updated successfully");
    })
    .delete(`${base}/:userSecurityDocumentId`, async (request, ctx) => {
      const formId = guidParam(request, "formId");
      const id = guidParam(request, "userSecurityDocumentId");
      await removeFormUser(ctx, callerOf(request), formId, id);
      return envelope(id, "Form collaborator removed successfully");
    });
}

function roleFlags(url: URL): Partial<RoleFlags> {
  const flags: Partial<RoleFlags> = {};
  for (const role of roleNames) {
    const value = readFlag(url, role);
    if (value !== undefined) flags[role] = value;
  }
  return flags;
}
