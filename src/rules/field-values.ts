/**
 * What one value of a field may be, as far as the field alone tells (docs/design.md §5): S2
 * checks each submitted value with it (src/domain/submissions/submission-values.ts), and the
 * hosted page checks a value as a person changes it (docs/design.md §21), so that the page and
 * S2 say the same words. Pure: it runs in the browser too.
 */
import * as v from "valibot";

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
export const requiredProblem = "is required";

/**
 * What is wrong with `value` for `field`, required or not: `null` when nothing, `undefined`
 * for a non-empty value of a choice field, whose options only the caller can read.
 */
export function fieldValueProblem(
  field: CheckedField,
  value: string,
  required: boolean,
): string | null | undefined {
  if (value === "") return required ? requiredProblem : null;
  switch (field.type) {
    case "text":
    case "textarea":
    case "hidden":
      return field.max_length !== undefined && [...value].length > field.max_length
        ? `must be at most ${field.max_length} characters`
        : null;
    case "email":
      return v.is(emailSchema, value) ? null : "must be an e-mail address";
    case "number":
      return numberProblem(field, value);
    case "date":
      return isIsoDate(value) ? null : "must be a date written YYYY-MM-DD";
    case "file":
      return filesProblem(field, value);
    default:
      return undefined;
  }
}

function numberProblem(field: { min?: number; max?: number }, value: string): string | null {
  if (!numberPattern.test(value)) return "must be a number";
  const number = Number(value);
  if (field.min !== undefined && number < field.min) return `must be at least ${field.min}`;
  if (field.max !== undefined && number > field.max) return `must be at most ${field.max}`;
  return null;
}

function isIsoDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().startsWith(value);
}

function filesProblem(field: { max_files?: number }, value: string): string | null {
  const ids = value.split("|");
  if (!ids.every((id) => guidPattern.test(id))) return "must be attachment ids joined by |";
  if (new Set(ids).size !== ids.length) return "names an attachment more than once";
  if (field.max_files !== undefined && ids.length > field.max_files) {
    return `must hold at most ${field.max_files} files`;
  }
  return null;
}
