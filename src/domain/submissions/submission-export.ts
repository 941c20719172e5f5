import { stringify } from "csv-stringify/sync";
import { attachmentLink } from "../attachments/signed-links.ts";
import { type AuditSource, appendAudit } from "../audit/index.ts";
import type { Context } from "../context.ts";
import type { FormAccess } from "../forms/form-access.ts";
import { type FormField, fieldsOf } from "../forms/form-definition.ts";
import { collections } from "../records/collections.ts";
import { attachmentIdsOf, type SubmissionRecord } from "../records/submission-record.ts";
import { paymentOf } from "../settings/sections/payment.ts";
import { filterConditions } from "./submission-listing.ts";

/** The formats of the export (extension). */
export type ExportFormat = "csv" | "ndjson";

/** What the export takes, read from its query string: S5's filters and a format. */
export interface SubmissionExportOptions {
  format: ExportFormat;
  /** Earliest creation time, UNIX milliseconds, inclusive. */
  dateFrom?: number;
  /** Latest creation time, UNIX milliseconds, inclusive. */
  dateTo?: number;
  /** Words every result's `search_words` must hold (lower case). */
  search: string[];
}

/** Submissions read from the store per step of the stream: what memory holds at once. */
const pageSize = 200;

/** The columns before the definition's fields. */
const fixedColumns = ["id", "created_date_utc", "is_draft_submission"] as const;

/** The columns after the fields of a form that takes payments (docs/design.md §26). */
const paymentColumns = [
  "payment_status",
  "payment_amount",
  "payment_currency",
  "payment_reference",
] as const;

/**
 * The export of a form's submissions (extension): every submission that S5's filters keep, in
 * creation order, as CSV or as newline-delimited JSON, streamed page by page, so that memory
 * holds one page whatever the number of submissions. One column (CSV) or key (NDJSON) per
 * field of the definition, in definition order, after the id, the creation time and the draft
 * flag; a file field holds signed read links, separated by spaces. A form that takes payments
 * adds {@link paymentColumns} after the fields (empty for a submission that paid nothing).
 * CSV cells that a spreadsheet
 * would read as a formula are neutralised. A store failure in the middle of the stream ends it
 * with an error: the status line has been sent by then, so the client sees a cut download.
 */
export function exportSubmissions(
  ctx: Context,
  access: FormAccess,
  options: SubmissionExportOptions,
): ReadableStream<Uint8Array> {
  const formId = access.form.id;
  const fields = fieldsOf(access.form.form_definition);
  const extra = paymentOf(access.form) ? paymentColumns : [];
  const where = filterConditions(options);
  const encoder = new TextEncoder();
  let continuation: string | null = null;
  let started = false;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let text = "";
        if (!started && options.format === "csv") text = csvHeader(fields, extra);
        const page = await ctx.store.query<SubmissionRecord>(collections.submissions, formId, {
          where,
          orderBy: { field: "created_date_utc" },
          limit: pageSize,
          continuation,
        });
        started = true;
        const rows = [];
        for (const { record } of page.items) rows.push(await rowOf(ctx, fields, extra, record));
        text += options.format === "csv" ? csvRows(rows) : ndjsonRows(fields, extra, rows);
        if (text) controller.enqueue(encoder.encode(text));
        continuation = page.continuation;
        if (!continuation) controller.close();
      },
    },
    // One page at a time: the next is read only when the client has taken this one.
    { highWaterMark: 0 },
  );
}

/**
 * The export, recorded in the audit trail before its first byte is sent (docs/design.md §25):
 * a stream cannot fail its request once started, so the entry comes first and names no ids
 * (how many the client took is known only at the end). A failed write fails the request.
 */
export async function exportSubmissionsRecorded(
  ctx: Context,
  access: FormAccess,
  options: SubmissionExportOptions,
  source: AuditSource,
): Promise<ReadableStream<Uint8Array>> {
  await appendAudit(ctx, access.form.id, source, "submissions_exported", []);
  return exportSubmissions(ctx, access, options);
}

/** One exported submission: the fixed columns, then each field's value in definition order. */
type Row = [id: string, created: string, draft: boolean, ...values: string[]];

async function rowOf(
  ctx: Context,
  fields: FormField[],
  extra: readonly string[],
  submission: SubmissionRecord,
) {
  const values = new Map(
    submission.form_fields.map((field) => [field.unique_system_name, field.submitted_value]),
  );
  const row: Row = [submission.id, submission.created_date_utc, submission.is_draft_submission];
  for (const field of fields) {
    const value = values.get(field.unique_system_name) ?? "";
    row.push(field.type === "file" ? await linksOf(ctx, submission.form_id, value) : value);
  }
  for (const column of extra) {
    row.push(String(submission[column as keyof SubmissionRecord] ?? ""));
  }
  return row;
}

/** A file field's attachments as signed read links, separated by spaces. */
async function linksOf(ctx: Context, formId: string, value: string): Promise<string> {
  const links = [];
  for (const id of attachmentIdsOf(value)) links.push(await attachmentLink(ctx, formId, id));
  return links.join(" ");
}

function csvHeader(fields: FormField[], extra: readonly string[]): string {
  const names = fields.map((field) => field.label || field.unique_system_name);
  // A byte order mark lets spreadsheet programs read the file as UTF-8.
  return stringify([[...fixedColumns, ...names, ...extra].map(neutralised)], csvOptions(true));
}

function csvRows(rows: Row[]): string {
  if (rows.length === 0) return "";
  return stringify(
    rows.map((row) => row.map((cell) => (typeof cell === "string" ? neutralised(cell) : cell))),
    csvOptions(false),
  );
}

function csvOptions(bom: boolean) {
  return {
    bom,
    record_delimiter: "windows" as const,
    // RFC 4180 quotes a line break of any kind, not only the record delimiter.
    quoted_match: /[\r\n]/,
    cast: { boolean: (value: boolean) => (value ? "true" : "false") },
  };
}

/**
 * A cell that a spreadsheet would run as a formula (it begins with `=`, `+`, `-`, `@`, a tab
 * or a carriage return: OWASP's list) gets a leading apostrophe, which shows it as text.
 */
export function neutralised(cell: string): string {
  return /^[=+\-@\t\r]/.test(cell) ? `'${cell}` : cell;
}

function ndjsonRows(fields: FormField[], extra: readonly string[], rows: Row[]): string {
  let text = "";
  for (const [id, created_date_utc, is_draft_submission, ...values] of rows) {
    const record: Record<string, unknown> = { id, created_date_utc, is_draft_submission };
    fields.forEach((field, n) => {
      record[field.unique_system_name] = values[n];
    });
    extra.forEach((column, n) => {
      record[column] = values[fields.length + n];
    });
    text += `${JSON.stringify(record)}\n`;
  }
  return text;
}
