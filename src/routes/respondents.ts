import { eraseRespondent, exportRespondent } from "../domain/flows/index.ts";
import { readJson } from "../http/body.ts";
import { parseWith } from "../kernel/parse.ts";
import { erasureAnswer, respondentBody, respondentQuery } from "../schemas/respondents.ts";
import type { RouteOperation } from "./operation.ts";
import { auditSourceOf, callerOf, urlOf } from "./route-request.ts";

const base = "/api/restricted/respondents";

/**
 * Erasure and access by respondent (extension, docs/design.md §6), across the forms the
 * caller owns or manages; a partner acting for a customer (P2) covers that customer's forms.
 */
export const respondentOperations: RouteOperation[] = [
  {
    method: "post",
    path: `${base}/erase`,
    operationId: "eraseRespondent",
    ref: "extension",
    summary: "Delete every submission of one respondent across the caller's forms",
    description:
      "Deletes, on each form the caller owns or holds `has_account_management` on, every submission whose e-mail fields (or the confirmation e-mail's recipient field) hold `email`, compared case-insensitively, with its files, deliveries and history, as S7 does (webhooks called for `form_submission.deleted` hear of each). A form's first erasure or export also indexes, once, the submissions stored before the respondent index existed, so it takes one pass over the form's submissions. A request cut short by a crash is finished by the service's sweep.",
    tag: "Submissions",
    auth: "account",
    body: { json: { name: "RespondentErasure", schema: respondentBody }, required: true },
    response: {
      description: "`deleted` in all, and per form that had any (`forms`).",
      schema: { name: "RespondentErased", schema: erasureAnswer },
    },
    handler: async (request, ctx) => {
      const raw = await readJson(request, ctx.limits.jsonBodyBytes);
      const { email } = parseWith(respondentBody, raw);
      return eraseRespondent(ctx, callerOf(request), email, auditSourceOf(request));
    },
  },
  {
    method: "get",
    path: `${base}/export`,
    operationId: "exportRespondent",
    ref: "extension",
    summary: "Export every submission of one respondent across the caller's forms",
    description:
      "Streams newline-delimited JSON, one line per submission of the forms the caller owns or holds `has_account_management` on whose e-mail fields (or the confirmation e-mail's recipient field) hold `email`, compared case-insensitively: `form_id`, `form_name`, and `form_submission` and `attachment_details` as S1 answers them, each attachment also with `attachment_url`, its whole signed read link. No submission: an empty body. A form's first erasure or export also indexes, once, the submissions stored before the respondent index existed, so it takes one pass over the form's submissions.",
    tag: "Submissions",
    auth: "account",
    query: respondentQuery,
    queryDescriptions: { email: "The respondent's e-mail address." },
    response: { description: "The submissions, as a download.", schema: "ndjson" },
    handler: async (request, ctx) => {
      const raw = { email: urlOf(request).searchParams.get("email") ?? undefined };
      const { email } = parseWith(respondentQuery, raw, "The query parameters are not valid");
      const body = await exportRespondent(ctx, callerOf(request), email, auditSourceOf(request));
      return new Response(body, {
        headers: {
          "content-type": "application/x-ndjson; charset=utf-8",
          "content-disposition": 'attachment; filename="respondent.ndjson"',
          "cache-control": "no-store",
          "x-content-type-options": "nosniff",
        },
      });
    },
  },
];
