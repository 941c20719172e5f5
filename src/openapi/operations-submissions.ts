import * as answers from "../schemas/answers.ts";
import {
  exportQuery,
  listQuery,
  submissionBody,
  submissionUpdateBody,
} from "../schemas/submissions.ts";
import { actionParam, deliveriesQuery, webhookBody } from "../schemas/webhooks.ts";
import type { Operation } from "./operation.ts";
import { actionResult, confirmation, submissionPosted } from "./responses.ts";

const deliveries = { name: "DeliveryPage", schema: answers.deliveryPage };
const submissionPath = "/api/restricted/form/:formId/submission/:submissionId";
const webhookPath = "/api/restricted/form/:formId/submissionwebhook";

/** Submissions and attachments (S1–S7) and submission webhooks (W1–W3, deliveries). */
export const submissionOperations: Operation[] = [
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
    body: { json: { name: "SubmissionInput", schema: submissionBody }, required: true },
    response: {
      description: "The new submission's id and the thanks-page behaviour.",
      schema: submissionPosted,
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
    body: { multipart: "One file part, named after the form's file field (`unique_system_name`)." },
    response: { description: "`id` is the new attachment's id.", schema: actionResult },
  },
  {
    method: "get",
    path: "/api/restricted/form/:formId/submissionattachment/:attachmentId",
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
  },
  {
    method: "get",
    path: "/api/restricted/form/:formId/submissions",
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
  },
  {
    method: "get",
    path: "/api/restricted/form/:formId/submissions/export",
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
  },
  {
    method: "post",
    path: submissionPath,
    operationId: "updateSubmission",
    ref: "S6",
    summary: "Update a submission's values or clear its draft flag",
    tag: "Submissions",
    auth: "account",
    body: { json: { name: "SubmissionChanges", schema: submissionUpdateBody }, required: true },
    response: {
      description: "`form_submission_item_updated` is true.",
      schema: confirmation(
        "SubmissionUpdated",
        "form_submission_item_updated",
        "Form submission has been updated successfully",
      ),
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
  },
  {
    method: "get",
    path: webhookPath,
    operationId: "listWebhooks",
    ref: "W1",
    summary: "List a form's submission webhooks, with their signing secrets",
    tag: "Webhooks",
    auth: "account",
    response: {
      description: "A JSON array of webhook records.",
      schema: { name: "WebhookList", schema: answers.webhookList },
    },
  },
  {
    method: "post",
    path: webhookPath,
    operationId: "addWebhook",
    ref: "W2",
    summary: "Add a submission webhook",
    tag: "Webhooks",
    auth: "account",
    body: { json: { name: "WebhookInput", schema: webhookBody }, required: true },
    response: { description: "`id` is the new webhook's id.", schema: actionResult },
  },
  {
    method: "delete",
    path: `${webhookPath}/:webhookId`,
    operationId: "removeWebhook",
    ref: "W3",
    summary: "Remove a submission webhook",
    description: "The interface names this path's last parameter `submissionwebhookId`.",
    tag: "Webhooks",
    auth: "account",
    response: {
      description: "`message` is `Form submission webhook removed successfully`.",
      schema: actionResult,
    },
  },
  {
    method: "get",
    path: `${webhookPath}/:webhookId/deliveries`,
    operationId: "listWebhookDeliveries",
    ref: "extension",
    summary: "List a webhook's deliveries, newest first, with every attempt",
    tag: "Webhooks",
    auth: "account",
    query: deliveriesQuery,
    response: { description: "`results` and `continuation_token`.", schema: deliveries },
  },
  {
    method: "get",
    path: "/api/restricted/form/:formId/actions/:action/deliveries",
    operationId: "listActionDeliveries",
    ref: "extension",
    summary: "List a form's confirmation e-mails or destination posts, newest first",
    description:
      "Each with its `kind`, `status` and every attempt, the first one made within S2. Role `has_account_management`.",
    pathDescriptions: { action: "`email` or `destination`." },
    pathSchemas: { action: actionParam },
    tag: "Webhooks",
    auth: "account",
    query: deliveriesQuery,
    response: { description: "`results` and `continuation_token`.", schema: deliveries },
  },
  {
    method: "post",
    path: "/api/restricted/form/:formId/actions/:action/deliveries/:deliveryId/redeliver",
    operationId: "redeliverAction",
    ref: "extension",
    summary: "Send a confirmation e-mail or destination post again",
    description:
      "Same body, a fresh round of attempts; the delivery's history keeps the earlier ones. An e-mail keeps its Message-ID. 409 while the delivery is still pending. Role `has_account_management`.",
    pathDescriptions: { action: "`email` or `destination`." },
    pathSchemas: { action: actionParam },
    tag: "Webhooks",
    auth: "account",
    response: { description: "`message` is `Delivery queued again`.", schema: actionResult },
  },
  {
    method: "post",
    path: `${webhookPath}/:webhookId/deliveries/:deliveryId/redeliver`,
    operationId: "redeliverWebhook",
    ref: "extension",
    summary: "Send a delivery again",
    tag: "Webhooks",
    auth: "account",
    response: { description: "`message` is `Delivery queued again`.", schema: actionResult },
  },
];
