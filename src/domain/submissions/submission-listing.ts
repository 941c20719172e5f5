import { withLazyJsonArray } from "../../kernel/json-texts.ts";
import type { Condition } from "../../ports/store.ts";
import { containerQuery } from "../attachments/signed-links.ts";
import { type AuditSource, appendAudit } from "../audit/index.ts";
import type { Context } from "../context.ts";
import type { FormAccess } from "../forms/form-access.ts";
import { roleNames } from "../forms/roles.ts";
import { collections } from "../records/collections.ts";
import {
  attachmentView,
  idOfSubmissionText,
  ownedPublicSubmission,
  publicSubmissionText,
  type SubmissionRecord,
} from "../records/submission-record.ts";
import { attachmentsOf } from "./submission-reading.ts";

/** What S5 takes, read from its query string. */
export interface SubmissionListOptions {
  includeFormDefinition: boolean;
  /** Earliest creation time, UNIX milliseconds, inclusive. */
  dateFrom?: number;
  /** Latest creation time, UNIX milliseconds, inclusive. */
  dateTo?: number;
  /** Results per page, 1 to 1000. */
  batchSize: number;
  /** The `continuation_token` of the previous page. */
  continuationToken?: string;
  /** Words every result's `search_words` must hold (lower case). */
  search: string[];
}

/**
 * S5: one page of a form's submissions in ascending `created_date_utc`, with the attachments
 * they hold and a read link to the form's whole attachment container. One single-partition
 * query, whatever the number of submissions the form has, and one audit entry naming the
 * page's submissions (docs/design.md §25).
 */
export async function listSubmissions(
  ctx: Context,
  access: FormAccess,
  options: SubmissionListOptions,
  source: AuditSource,
) {
  const formId = access.form.id;
  const where = filterConditions(options);
  const page = await ctx.store.query<SubmissionRecord>(collections.submissions, formId, {
    where,
    orderBy: { field: "created_date_utc" },
    limit: options.batchSize,
    continuation: options.continuationToken ?? null,
  });
  // A result is written from the store's text of its record, cut as `publicSubmissionText`
  // tells, and a record whose text tells all S5 needs (its id, no file held) is not even
  // built: a store may parse a record only when it is read (docs/design.md §18).
  const texts: (string | undefined)[] = [];
  const ids: string[] = [];
  const untold: SubmissionRecord[] = [];
  for (const item of page.items) {
    const text = item.json === undefined ? undefined : publicSubmissionText(item.json);
    texts.push(text);
    if (text === undefined) untold.push(item.record);
    const id = text === undefined ? undefined : idOfSubmissionText(text);
    ids.push(id ?? item.record.id);
  }
  // A record told by its text holds no file (`attachments_held` is empty): only the others may.
  const attachments = untold.length > 0 ? await attachmentsOf(ctx, access, untold) : [];
  const container_sas_uri = ctx.blobs ? await containerQuery(ctx, formId) : "";
  await appendAudit(ctx, formId, source, "submissions_listed", ids, ids.length);
  const answer = {
    ...(options.includeFormDefinition ? { form_definition: access.form.form_definition } : {}),
    results: [] as ReturnType<typeof ownedPublicSubmission>[],
    attachments: attachments.map(attachmentView),
    granted_form_roles: roleNames.filter((role) => access.roles.has(role)),
    container_sas_uri,
    continuation_token: page.continuation,
  };
  // The store's answer is this call's own (`Store.query`), and the answer only reads it.
  const results = () => page.items.map(({ record }) => ownedPublicSubmission(record));
  return withLazyJsonArray(answer, "results", texts, results);
}

/** S5's filters as store conditions: every search word, and the date window. */
export function filterConditions(
  options: Pick<SubmissionListOptions, "dateFrom" | "dateTo" | "search">,
): Condition[] {
  const where: Condition[] = options.search.map((word) => ({
    field: "search_words",
    op: "contains",
    value: word,
  }));
  if (options.dateFrom !== undefined) {
    where.push({ field: "created_date_utc", op: "gte", value: isoOf(options.dateFrom) });
  }
  if (options.dateTo !== undefined) {
    where.push({ field: "created_date_utc", op: "lte", value: isoOf(options.dateTo) });
  }
  return where;
}

function isoOf(milliseconds: number): string {
  return new Date(milliseconds).toISOString();
}
