import { deleteForm, renderForm } from "../domain/flows/index.ts";
import { cloneForm, createForm, listForms, replaceForm } from "../domain/forms/index.ts";
import { updateSettingsSection } from "../domain/settings/index.ts";
import { readJson } from "../http/body.ts";
import { ValidationError } from "../kernel/errors.ts";
import { parseWith, readFlag } from "../kernel/parse.ts";
import { formBody } from "../schemas/forms.ts";
import { parseSettingsSection } from "../schemas/settings.ts";
import { callerOf, envelope, guidParam, type ServiceRouter, urlOf } from "./route-request.ts";

/** Forms: F1–F5 and the create and whole-update extensions. */
export function formRoutes(router: ServiceRouter): void {
  router
    .post("/api/restricted/form", async (request, ctx) => {
      const input = parseWith(formBody, await readJson(request, ctx.limits.jsonBodyBytes));
      const form = await createForm(ctx, callerOf(request), input);
      return envelope(form.id, "Form created successfully");
    })
    .post("/api/restricted/form/:formId/clone", async (request, ctx) => {
      const form = await cloneForm(ctx, callerOf(request), guidParam(request, "formId"));
      return envelope(form.id, "Form cloned successfully");
    })
    .post("/api/restricted/form/:formId", async (request, ctx) => {
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
        if (section === "generalsettingsdelete") await deleteForm(ctx, caller, formId);
        else {
          const body = await readJson(request, ctx.limits.jsonBodyBytes);
          await updateSettingsSection(
            ctx,
            caller,
            formId,
            section,
            parseSettingsSection(section, body),
          );
        }
      }
      return envelope("", "Form updated successfully");
    })
    .get("/api/restricted/user/form", (request, ctx) => listForms(ctx, callerOf(request)))
    .get("/api/form/:formId", (request, ctx) =>
      renderForm(ctx, request.caller, guidParam(request, "formId")),
    );
}
