import { create as contentDisposition } from "content-disposition";
import * as v from "valibot";
import { storeAttachment, storeAttachmentOnce } from "../domain/attachments/index.ts";
import type { Context } from "../domain/context.ts";
import { deviceOf } from "../domain/device.ts";
import {
  createSubmission,
  createSubmissionOnce,
  deleteSubmission,
  updateSubmission,
  updateSubmissionOnce,
} from "../domain/flows/index.ts";
import { accessFormToReport } from "../domain/forms/index.ts";
import { accessFormToSubmit, screenUpload } from "../domain/settings/index.ts";
import {
  exportSubmissionsRecorded,
  getAttachmentLink,
  getSubmission,
  getSubmissionHistory,
  listSubmissions,
} from "../domain/submissions/index.ts";
import { readJson } from "../http/body.ts";
import { receiveFile } from "../http/multipart.ts";
import { ServiceError } from "../kernel/errors.ts";
import { parseWith } from "../kernel/parse.ts";
import { actionResult, confirmation, submissionPosted } from "../openapi/responses.ts";
import { safeFilename } from "../ports/download-headers.ts";
import * as answers from "../schemas/answers.ts";
import {
  exportQuery,
  listQuery,
  parseExportQuery,
  parseListQuery,
  submissionBody,
  submissionUpdateBody,
} from "../schemas/submissions.ts";
import { altchaHeader, botHeaders, botMarksOf } from "./bot-headers.ts";
import { idempotencyKeyHeaders, idempotencyKeyOf, idempotentAnswer } from "./idempotency-key.ts";
import type { RouteOperation } from "./operation.ts";
import {
  auditSourceOf,
  callerOf,
  envelope,
  guidParam,
  type RouteRequest,
  urlOf,
} from "./route-request.ts";

const restricted = "/api/restricted/form/:formId";
const submissionPath = `${restricted}/submission/:submissionId`;

/** Submissions and attachments: S1–S7, and the export extension. */
export const submissionOperations: RouteOperation[] = [
  {
    method: "get",
    path: submissionPath,
    operationId: "getSubmission",
    ref: "S1",
    summary: "Read a submission with signed links to its attachments",
    tag: "Submissions",
    auth: "account",
    response: {
      description: "`form_submission`, `attachment_details` and `user_has_edit_submission_access`.",
      schema: { name: "SubmissionWithAttachments", schema: answers.submissionAnswer },
    },
    handler: async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      return getSubmission(ctx, access, guidParam(request, "submissionId"), auditSourceOf(request));
    },
  },
  {
    method: "get",
    path: `${submissionPath}/history`,
    operationId: "getSubmissionHistory",
    ref: "extension",
    summary: "List a submission's edits, newest first, with what each changed",
    tag: "Submissions",
    auth: "account",
    response: {
      description: "`versions`, newest first: who changed which fields, when, from what to what.",
      schema: { name: "SubmissionHistory", schema: answers.submissionHistory },
    },
    handler: async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      return getSubmissionHistory(ctx, access, guidParam(request, "submissionId"));
    },
  },
  {
    method: "post",
    path: "/api/form/:formId/submission",
    operationId: "postSubmission",
    ref: "S2",
    summary: "Submit a form",
    description: "A file field's value is the pipe-separated ids of attachments uploaded with S3.",
    tag: "Submissions",
    auth: "public",
    headers: v.object({ ...botHeaders.entries, ...idempotencyKeyHeaders.entries }),
    body: { json: { name: "SubmissionInput", schema: submissionBody }, required: true },
    response: {
      description:
        "The new submission's id and the thanks-page behaviour. A hosted-page post that its bot protections screen out gets the same answer and is not stored.",
      schema: submissionPosted,
    },
    handler: async (request, ctx) => {
      const formId = guidParam(request, "formId");
      const key = idempotencyKeyOf(request);
      const raw = await readJson(request, ctx.limits.jsonBodyBytes);
      const body = parseWith(submissionBody, raw);
      const device = await deviceOf(ctx, request.clientAddress);
      const marks = botMarksOf(request.headers);
      const { caller } = request;
      // Built only for a paying form's checkout.
      const page = () => hostedPageUrl(request, formId);
      if (key === undefined)
        return createSubmission(ctx, caller, formId, body, device, marks, undefined, page);
      const once = { key, body: raw };
      return idempotentAnswer(
        request,
        await createSubmissionOnce(ctx, caller, formId, body, device, marks, once, page),
      );
    },
  },
  {
    method: "post",
    path: "/api/form/:formId/submissionattachment",
    operationId: "uploadAttachment",
    ref: "S3",
    summary: "Upload a file for a file field",
    tag: "Submissions",
    auth: "public",
    headers: v.object({ Altcha: altchaHeader, ...idempotencyKeyHeaders.entries }),
    body: { multipart: "One file part, named after the form's file field (`unique_system_name`)." },
    response: { description: "`id` is the new attachment's id.", schema: actionResult },
    handler: async (request, ctx) => {
      const { caller } = request;
      const access = await accessFormToSubmit(ctx, caller, guidParam(request, "formId"));
      const key = idempotencyKeyOf(request);
      refuseOversize(request, ctx);
      // A keyed upload already answered is replayed without a new solution.
      const screen = () => screenUpload(ctx, access.form, botMarksOf(request.headers).solution);
      if (key === undefined) await screen();
      const device = await deviceOf(ctx, request.clientAddress);
      const { answer, replayed } = await receiveFile(
        request,
        (file) =>
          key === undefined
            ? storeAttachment(ctx, access, caller, file, device).then(firstAnswer)
            : storeAttachmentOnce(ctx, access, caller, file, device, key, screen),
        request.hostBody,
      );
      return idempotentAnswer(request, {
        answer: envelope(answer, "File upload succeeded"),
        replayed,
      });
    },
  },
  {
    method: "get",
    path: `${restricted}/submissionattachment/:attachmentId`,
    operationId: "getAttachmentLink",
    ref: "S4",
    summary: "A temporary download link to an attachment",
    tag: "Submissions",
    auth: "account",
    response: {
      description:
        "`id` is `{storage_url}/<container>/<attachment_id>?sv=…&sig=…`, valid for 15 minutes by default.",
      schema: actionResult,
    },
    handler: async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      const attachmentId = guidParam(request, "attachmentId");
      return getAttachmentLink(ctx, access.form.id, attachmentId, auditSourceOf(request));
    },
  },
  {
    method: "get",
    path: `${restricted}/submissions`,
    operationId: "listSubmissions",
    ref: "S5",
    summary: "List a form's submissions, oldest first",
    description:
      "`include_form_definition`, `date_from`, `date_to`, `batch_size` and `continuation_token` are accepted as aliases.",
    tag: "Submissions",
    auth: "account",
    query: listQuery,
    queryDescriptions: {
      dateFrom: "UNIX time in milliseconds, inclusive.",
      dateTo: "UNIX time in milliseconds, inclusive.",
      batchSize: "Results per page: 100 by default, at most 1000.",
      continuationToken: "The `continuation_token` of the previous page (extension).",
      search: "Keeps submissions whose search words hold every word given (extension).",
    },
    response: {
      description:
        "`results`, `attachments`, `granted_form_roles`, `container_sas_uri` and `continuation_token` (extension).",
      schema: { name: "SubmissionPage", schema: answers.submissionPage },
    },
    handler: async (request, ctx) => {
      const options = parseListQuery(urlOf(request).searchParams);
      const access = await reportingAccess(request, ctx);
      return listSubmissions(ctx, access, options, auditSourceOf(request));
    },
  },
  {
    method: "get",
    path: `${restricted}/submissions/export`,
    operationId: "exportSubmissions",
    ref: "extension",
    summary: "Export a form's submissions as CSV or NDJSON, oldest first",
    description:
      "Takes S5's filters and role (`has_reporting_full`) and streams every submission they keep. One column (CSV) or key (NDJSON) per field of the definition, in definition order, after `id`, `created_date_utc` and `is_draft_submission`; file fields hold signed read links separated by spaces. CSV has a header row of field labels, CRLF line ends and a byte order mark; a cell beginning with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'` so that spreadsheets show it as text. `date_from` and `date_to` are accepted as aliases.",
    tag: "Submissions",
    auth: "account",
    query: exportQuery,
    queryDescriptions: {
      format: "`csv` (the default) or `ndjson`.",
      dateFrom: "UNIX time in milliseconds, inclusive.",
      dateTo: "UNIX time in milliseconds, inclusive.",
      search: "Keeps submissions whose search words hold every word given.",
    },
    response: { description: "The submissions, as a download.", schema: "export" },
    handler: exportAnswer,
  },
  {
    method: "post",
    path: submissionPath,
    operationId: "updateSubmission",
    ref: "S6",
    summary: "Update a submission's values or clear its draft flag",
    tag: "Submissions",
    auth: "account",
    headers: idempotencyKeyHeaders,
    body: { json: { name: "SubmissionChanges", schema: submissionUpdateBody }, required: true },
    response: {
      description: "`form_submission_item_updated` is true.",
      schema: confirmation(
        "SubmissionUpdated",
        "form_submission_item_updated",
        "Form submission has been updated successfully",
      ),
    },
    handler: async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      const submissionId = guidParam(request, "submissionId");
      const key = idempotencyKeyOf(request);
      const raw = await readJson(request, ctx.limits.jsonBodyBytes);
      const body = parseWith(submissionUpdateBody, raw);
      const caller = callerOf(request);
      const source = auditSourceOf(request);
      if (key === undefined) {
        return updateSubmission(ctx, access.form, submissionId, body, caller, undefined, source);
      }
      const once = { key, body: raw };
      return idempotentAnswer(
        request,
        await updateSubmissionOnce(ctx, caller, access.form, submissionId, body, once, source),
      );
    },
  },
  {
    method: "delete",
    path: submissionPath,
    operationId: "deleteSubmission",
    ref: "S7",
    summary: "Delete a submission and its files",
    tag: "Submissions",
    auth: "account",
    response: {
      description: "`form_submission_item_deleted` is true.",
      schema: confirmation(
        "SubmissionDeleted",
        "form_submission_item_deleted",
        "Form submission has been deleted successfully",
      ),
    },
    handler: async (request, ctx) => {
      const access = await reportingAccess(request, ctx);
      const submissionId = guidParam(request, "submissionId");
      return deleteSubmission(ctx, access.form, submissionId, auditSourceOf(request));
    },
  },
];

const downloadTypes = {
  csv: "text/csv; charset=utf-8",
  ndjson: "application/x-ndjson; charset=utf-8",
} as const;

/** The export as a download named after the form. */
async function exportAnswer(request: RouteRequest, ctx: Context): Promise<Response> {
  const options = parseExportQuery(urlOf(request).searchParams);
  const access = await reportingAccess(request, ctx);
  const body = await exportSubmissionsRecorded(ctx, access, options, auditSourceOf(request));
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
}

/** The form of the path, for the owner or a holder of `has_reporting_full` (S1, S4–S7). */
function reportingAccess(request: RouteRequest, ctx: Context) {
  return accessFormToReport(ctx, callerOf(request), guidParam(request, "formId"));
}

/**
 * The form's hosted page beside an S2's address (`…/api/form/{id}/submission` →
 * `…/f/{id}`), where a paying form's checkout sends the respondent back (docs/design.md §26).
 */
function hostedPageUrl(request: RouteRequest, formId: string): string {
  const url = urlOf(request);
  url.pathname = url.pathname.replace(/\/api\/form\/[^/]+\/submission\/?$/i, `/f/${formId}`);
  url.search = "";
  return url.href;
}

/** An answer that is no replay. */
function firstAnswer<T>(answer: T) {
  return { answer, replayed: false };
}

/** What a multipart body may add around its file: headers and boundaries. */
const multipartOverhead = 64 * 1024;

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
