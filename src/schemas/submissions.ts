import * as v from "valibot";
import type {
  SubmissionExportOptions,
  SubmissionListOptions,
} from "../domain/submissions/index.ts";
import { wordsOf } from "../domain/submissions/index.ts";
import { parseWith } from "../kernel/parse.ts";

const submittedField = v.object({
  unique_system_name: v.string("must be a string"),
  submitted_value: v.string("must be a string (every value is sent as text)"),
});

/** Body of S2 and S6 (docs/design.md §4). */
export const submissionBody = v.object({
  form_fields: v.pipe(v.array(submittedField), v.maxLength(1000)),
  is_draft_submission: v.optional(v.boolean()),
});

/** Body of S6: the same, where `form_fields` may be left out to only clear the draft flag. */
export const submissionUpdateBody = v.object({
  form_fields: v.optional(submissionBody.entries.form_fields, []),
  is_draft_submission: v.optional(
    v.pipe(
      v.boolean(),
      v.description(
        "`false` clears the draft flag; `true` only keeps a draft a draft: a submission that is no longer a draft cannot become one again (400).",
      ),
    ),
  ),
});

/** The default and the most results of one S5 page (docs/design.md §6). */
export const batchSizes = { default: 100, max: 1000 } as const;

const milliseconds = v.pipe(
  v.string(),
  v.regex(/^\d{1,16}$/, "must be a UNIX time in milliseconds"),
  v.description("UNIX time in milliseconds, at most 8640000000000000."),
  v.transform(Number),
  v.maxValue(8.64e15, "is past the last representable date"),
);

/** S5's filters, which the export takes too. */
const filters = {
  dateFrom: v.optional(milliseconds),
  dateTo: v.optional(milliseconds),
  search: v.optional(v.pipe(v.string(), v.maxLength(1000))),
};

/** A window whose start is after its end names nothing: refused rather than answered empty. */
function windowInOrder<T extends { dateFrom?: number; dateTo?: number }>() {
  return v.forward<T, v.CheckIssue<T>, ["dateFrom"]>(
    v.check<T, string>(
      (q) => q.dateFrom === undefined || q.dateTo === undefined || q.dateFrom <= q.dateTo,
      "must not be after dateTo",
    ),
    // valibot cannot check a path against a generic input; T's constraint has `dateFrom`.
    ["dateFrom"] as never,
  );
}

/** Query of S5, under the names of the interface (see {@link parseListQuery} for aliases). */
export const listQuery = v.pipe(
  v.object({
    includeFormDefinition: v.optional(v.picklist(["0", "1"], "must be 0 or 1")),
    dateFrom: filters.dateFrom,
    dateTo: filters.dateTo,
    batchSize: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^\d{1,5}$/, "must be a whole number"),
        // The bounds below apply to the number; this pattern states them for the document.
        v.metadata({ pattern: "^(?=\\d{1,5}$)0*(?:[1-9]\\d{0,2}|1000)$" }),
        v.transform(Number),
        v.minValue(1, "must be at least 1"),
        v.maxValue(batchSizes.max, `must be at most ${batchSizes.max}`),
      ),
    ),
    continuationToken: v.optional(v.pipe(v.string(), v.maxLength(4096))),
    search: filters.search,
  }),
  windowInOrder(),
);

/** Query of the export (extension): S5's filters and a format, CSV unless asked otherwise. */
export const exportQuery = v.pipe(
  v.object({
    format: v.optional(v.picklist(["csv", "ndjson"], "must be csv or ndjson"), "csv"),
    ...filters,
  }),
  windowInOrder(),
);

/** Query names of S5 and the snake_case aliases accepted for them (docs/design.md §9). */
const aliases: Record<string, string> = {
  includeFormDefinition: "include_form_definition",
  dateFrom: "date_from",
  dateTo: "date_to",
  batchSize: "batch_size",
  continuationToken: "continuation_token",
  search: "search",
};

/** Reads S5's query string. @throws {ValidationError} naming each bad parameter. */
export function parseListQuery(params: URLSearchParams): SubmissionListOptions {
  const raw: Record<string, string> = {};
  for (const [name, alias] of Object.entries(aliases)) {
    const value = params.get(name) ?? params.get(alias);
    if (value !== null) raw[name] = value;
  }
  const query = parseWith(listQuery, raw, "The query parameters are not valid");
  return {
    includeFormDefinition: query.includeFormDefinition === "1",
    dateFrom: query.dateFrom,
    dateTo: query.dateTo,
    batchSize: query.batchSize ?? batchSizes.default,
    continuationToken: query.continuationToken,
    search: wordsOf(query.search ?? ""),
  };
}

/** Reads the export's query string (S5's aliases apply). @throws {ValidationError} as S5. */
export function parseExportQuery(params: URLSearchParams): SubmissionExportOptions {
  const raw: Record<string, string> = {};
  for (const name of ["format", "dateFrom", "dateTo", "search"]) {
    const value = params.get(name) ?? params.get(aliases[name] ?? name);
    if (value !== null) raw[name] = value;
  }
  const query = parseWith(exportQuery, raw, "The query parameters are not valid");
  return {
    format: query.format,
    dateFrom: query.dateFrom,
    dateTo: query.dateTo,
    search: wordsOf(query.search ?? ""),
  };
}
