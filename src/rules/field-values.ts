/**
 * What one value of a field may be, as far as the field alone tells (docs/design.md §5): S2
 * checks each submitted value with it (src/domain/submissions/submission-values.ts), and the
 * hosted page checks a value as a person changes it (docs/design.md §21), so that the page and
 * S2 find the same problems, which the page says in the respondent's language (field-problems.ts).
 * Pure: it runs in the browser too.
 */
import * as v from "valibot";
import { type FieldProblem, problemText } from "./field-problems.ts";

/** What the checks read of a field of the definition (docs/design.md §5). */
export interface CheckedField {
  type: string;
  max_length?: number;
  min?: number;
  max?: number;
  max_files?: number;
}

const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const numberPattern = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const emailSchema = v.pipe(v.string(), v.email());

/** What S2 says of an empty value of a field that is required. */
export const requiredProblem = problemText({ code: "required" });

/**
 * What is wrong with `value` for `field`, required or not, in S2's words: `null` when
 * nothing, `undefined` for a non-empty value of a choice field, whose options only the
 * caller can read.
 */
export function fieldValueProblem(
  field: CheckedField,
  value: string,
  required: boolean,
): string | null | undefined {
  const problem = fieldValueIssue(field, value, required);
  return problem ? problemText(problem) : problem;
}

/** {@link fieldValueProblem}'s problem by code (field-problems.ts), for the page's words. */
export function fieldValueIssue(
  field: CheckedField,
  value: string,
  required: boolean,
): FieldProblem | null | undefined {
  if (value === "") return required ? { code: "required" } : null;
  switch (field.type) {
    case "text":
    case "textarea":
    case "hidden":
      return field.max_length !== undefined && [...value].length > field.max_length
        ? { code: "too_long", max: field.max_length }
        : null;
    case "email":
      return v.is(emailSchema, value) ? null : { code: "not_email" };
    case "number":
      return numberProblem(field, value);
    case "date":
      return isIsoDate(value) ? null : { code: "not_date" };
    case "file":
      return filesProblem(field, value);
    default:
      return undefined;
  }
}

function numberProblem(field: { min?: number; max?: number }, value: string): FieldProblem | null {
  if (!numberPattern.test(value)) return { code: "not_number" };
  const number = Number(value);
  if (field.min !== undefined && number < field.min) return { code: "too_small", min: field.min };
  if (field.max !== undefined && number > field.max) return { code: "too_large", max: field.max };
  return null;
}

function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

function filesProblem(field: { max_files?: number }, value: string): FieldProblem | null {
  const ids = value.split("|");
  if (!ids.every((id) => guidPattern.test(id))) return { code: "not_attachments" };
  if (new Set(ids).size !== ids.length) return { code: "repeated_attachment" };
  if (field.max_files !== undefined && ids.length > field.max_files) {
    return { code: "too_many_files", max: field.max_files };
  }
  return null;
}
