import { listAuditEntries } from "../domain/audit/index.ts";
import { accessFormToManage } from "../domain/forms/index.ts";
import { parseWith } from "../kernel/parse.ts";
import * as answers from "../schemas/answers.ts";
import { auditQuery } from "../schemas/audit.ts";
import type { RouteOperation } from "./operation.ts";
import { callerOf, guidParam, urlOf } from "./route-request.ts";

/** The audit trail (extension, docs/design.md §25): read-only, as no route changes an entry. */
export const auditOperations: RouteOperation[] = [
  {
    method: "get",
    path: "/api/restricted/form/:formId/audit",
    operationId: "listAuditEntries",
    ref: "extension",
    summary: "List a form's audit trail, newest first",
    description:
      "Each read of submissions (S1, S5, the export, S4 links), each change of them (S6, S7, erasure, retention), and each change of who may see them (U2–U4, W2, W3, destination and e-mail settings), and the form's deletion: when, who, what, which ids, the client address and the request id. Entries are kept `limits.auditRetentionDays` (400 days by default), also after the form is deleted. Role `has_account_management`.",
    tag: "Audit",
    auth: "account",
    query: auditQuery,
    queryDescriptions: {
      batchSize: "Entries per page: 100 by default, at most 1000.",
      continuationToken: "The `continuation_token` of the previous page.",
    },
    response: {
      description: "`entries`, newest first, and `continuation_token` (null on the last page).",
      schema: { name: "AuditPage", schema: answers.auditPage },
    },
    handler: async (request, ctx) => {
      const formId = guidParam(request, "formId");
      const access = await accessFormToManage(ctx, callerOf(request), formId);
      const params = Object.fromEntries(urlOf(request).searchParams);
      const page = parseWith(auditQuery, params, "The query parameters are not valid");
      return listAuditEntries(ctx, access.form.id, page);
    },
  },
];
