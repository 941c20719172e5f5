import { create as contentDisposition } from "content-disposition";
import { storeAttachment } from "../domain/attachments/index.ts";
import type { Context } from "../domain/context.ts";
import { deviceOf } from "../domain/device.ts";
import { createSubmission, deleteSubmission, updateSubmission } from "../domain/flows/index.ts";
import { accessFormToReport, accessFormToSubmit } from "../domain/forms/index.ts";
import {
  exportSubmissions,
  getAttachmentLink,
  getSubmission,
  listSubmissions,
} from "../domain/submissions/index.ts";
import { readJson } from "../http/body.ts";
import { receiveFile } from "../http/multipart.ts";
import { ServiceError } from "../kernel/errors.ts";
import { parseWith } from "../kernel/parse.ts";
import { safeFilename } from "../ports/download-headers.ts";
import {
  parseExportQuery,
  parseListQuery,
  submissionBody,
  submissionUpdateBody,
} from "../schemas/submissions.ts";
import {
  callerOf,
  envelope,
  guidParam,
  type RouteRequest,
  type ServiceRouter,
  urlOf,
} from "./route-request.ts";

const downloadTypes = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson; charset=utf-8",
} as const;

/** What a multipart body may add around its file: headers and boundaries. */
const multipartOverhead = 64 * 1024;

/** Submissions and attachments: S1–S7. */
export function submissionRoutes(router: ServiceRouter): void {
  const restricted = "/api/restricted/form/:formId";
  router
    .post("/api/form/:formId/submission", async (request, ctx) => {
      const formId = guidParam(request, "formId");
      const body = parseWith(submissionBody, await readJson(request, ctx.limits.jsonBodyBytes));
      const device = await deviceOf(ctx, request.clientAddress);
      return createSubmission(ctx, request.caller, formId, body, device);
    })
    .post("/api/form/:formId/submissionattachment", async (request, ctx) => {
      const access = await accessFormToSubmit(ctx, request.caller, guidParam(request, "formId"));
      refuseOversize(request, ctx);
      const device = await deviceOf(ctx, request.clientAddress);
      const id = await receiveFile(
        request,
        (file) => storeAttachment(ctx, access, request.caller, file, device),
        request.hostBody,
      );
      return envelope(id, "File upload succeeded");
    })
    .get(`${restricted}/submission/:submissionId`, async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      return getSubmission(ctx, access, guidParam(request, "submissionId"));
    })
    .post(`${restricted}/submission/:submissionId`, async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      const submissionId = guidParam(request, "submissionId");
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
      const submissionId = guidParam(request, "submissionId");
      return deleteSubmission(ctx, access.form, submissionId);
    })
    .get(`${restricted}/submissionattachment/:attachmentId`, async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      const attachmentId = guidParam(request, "attachmentId");
      return getAttachmentLink(ctx, access.form.id, attachmentId);
    })
    .get(`${restricted}/submissions`, async (request, ctx) => {
      const options = parseListQuery(urlOf(request).searchParams);
      return listSubmissions(ctx, await reportingAccess(request, ctx), options);
    })
    .get(`${restricted}/submissions/export`, async (request, ctx) => {
      const options = parseExportQuery(urlOf(request).searchParams);
      const access = await reportingAccess(request, ctx);
      const body = exportSubmissions(ctx, access, options);
      // The form's name, without what a file name may not hold; "submissions" when it is empty.
      const name = safeFilename(access.form.form_configuration.settings.form_name, "submissions");
      return new Response(body, {
        headers: {
          "content-type": downloadTypes[options.format],
          "content-disposition": contentDisposition(`${name}.${options.format}`),
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
        },
      });
    });
}

/** The form of the path, for the owner or a holder of `has_reporting_full` (S1, S4–S7). */
function reportingAccess(request: RouteRequest, ctx: Context) {
  return accessFormToReport(ctx, callerOf(request), guidParam(request, "formId"));
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
