import type { Context } from "../context.ts";
import { deviceOf } from "../device.ts";
import { storeAttachment } from "../domain/attachments.ts";
import { accessForm, accessFormToSubmit, requireRole } from "../domain/form-access.ts";
import { listSubmissions } from "../domain/submission-listing.ts";
import { getAttachmentLink, getSubmission } from "../domain/submission-reading.ts";
import { createSubmission, deleteSubmission, updateSubmission } from "../domain/submissions.ts";
import { ServiceError } from "../errors.ts";
import { readJson } from "../http/body.ts";
import { receiveFile } from "../http/multipart.ts";
import { parseWith } from "../http/parse.ts";
import type { ServiceRouter } from "../http/route-request.ts";
import { callerOf, envelope, type RouteRequest, urlOf } from "../http/route-request.ts";
import { parseGuid } from "../ids.ts";
import { parseListQuery, submissionBody, submissionUpdateBody } from "../schemas/submissions.ts";

/** What a multipart body may add around its file: headers and boundaries. */
const multipartOverhead = 64 * 1024;

/** Submissions and attachments: S1–S7. */
export function submissionRoutes(router: ServiceRouter): void {
  const restricted = "/api/restricted/form/:formId";
  router
    .post("/api/form/:formId/submission", async (request, ctx) => {
      const formId = formIdOf(request);
      const body = parseWith(submissionBody, await readJson(request, ctx.limits.jsonBodyBytes));
      const device = await deviceOf(ctx, request.clientAddress);
      return createSubmission(ctx, request.caller, formId, body, device);
    })
    .post("/api/form/:formId/submissionattachment", async (request, ctx) => {
      const access = await accessFormToSubmit(ctx, request.caller, formIdOf(request));
      refuseOversize(request, ctx);
      const device = await deviceOf(ctx, request.clientAddress);
      const id = await receiveFile(request, (file) =>
        storeAttachment(ctx, access, request.caller, file, device),
      );
      return envelope(id, "File upload succeeded");
    })
    .get(`${restricted}/submission/:submissionId`, async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      return getSubmission(ctx, access, parseGuid(request.params.submissionId, "submissionId"));
    })
    .post(`${restricted}/submission/:submissionId`, async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      const submissionId = parseGuid(request.params.submissionId, "submissionId");
      const body = await readJson(request, ctx.limits.jsonBodyBytes);
      return updateSubmission(
        ctx,
        access.form,
        submissionId,
        parseWith(submissionUpdateBody, body),
      );
    })
    .delete(`${restricted}/submission/:submissionId`, async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      const submissionId = parseGuid(request.params.submissionId, "submissionId");
      return deleteSubmission(ctx, access.form, submissionId);
    })
    .get(`${restricted}/submissionattachment/:attachmentId`, async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      const attachmentId = parseGuid(request.params.attachmentId, "attachmentId");
      return getAttachmentLink(ctx, access.form.id, attachmentId);
    })
    .get(`${restricted}/submissions`, async (request, ctx) => {
      const options = parseListQuery(urlOf(request).searchParams);
      return listSubmissions(ctx, await reportingAccess(request, ctx), options);
    });
}

function formIdOf(request: RouteRequest): string {
  return parseGuid(request.params.formId, "formId");
}

/** The form, for the owner or a holder of `has_reporting_full` (S1, S4–S7). */
async function reportingAccess(request: RouteRequest, ctx: Context) {
  const access = await accessForm(ctx, callerOf(request), formIdOf(request));
  requireRole(access, "has_reporting_full");
  return access;
}

/** Refuses an upload whose declared length is past any file limit, before reading it. */
function refuseOversize(request: RouteRequest, ctx: Context) {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > ctx.limits.uploadBytes + multipartOverhead) {
    throw new ServiceError(
      "payload_too_large",
      `The upload is larger than ${ctx.limits.uploadBytes} bytes`,
    );
  }
}
