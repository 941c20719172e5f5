import * as v from "valibot";
import { type Context, collections } from "../context.ts";
import { ValidationError, type ValidationIssue } from "../errors.ts";
import { ownsDatalist } from "./datalists.ts";
import { compileDefinition, type FormDefinition, type FormField } from "./form-definition.ts";
import { attachmentIdsOf, type SubmittedField } from "./submission-record.ts";

const guidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const numberPattern = /^-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/;
const emailSchema = v.pipe(v.string(), v.email());

/**
 * Checks submitted values against the form definition (design.md §5): every name is a field
 * of the form and given once, required fields have a value unless `draft`, and each value
 * fits its field. Attachment ids are checked for shape here and for ownership when claimed.
 * A datalist-backed field offers only entries of a datalist that `owner`, the form's
 * owner, holds: its user id, or the datalists it is known to hold (`FormSnapshot`).
 * @returns the values in the definition's order.
 * @throws {ValidationError} with one issue per field at fault, named by its system name.
 */
export async function checkSubmittedValues(
  ctx: Context,
  definition: FormDefinition,
  values: SubmittedField[],
  draft: boolean,
  owner: DatalistOwner,
): Promise<SubmittedField[]> {
  const { fields } = compileDefinition(definition);
  const given = new Map<string, string>();
  const issues: ValidationIssue[] = [];
  for (const { unique_system_name: name, submitted_value: value } of values) {
    if (!fields.has(name)) issues.push({ path: name, message: "is not a field of this form" });
    else if (given.has(name)) issues.push({ path: name, message: "is given more than once" });
    given.set(name, value);
  }
  for (const [name, field] of fields) {
    const value = given.get(name) ?? "";
    const problem =
      value === ""
        ? field.required && !draft
          ? "is required"
          : null
        : await problemWith(ctx, field, value, owner);
    if (problem) issues.push({ path: name, message: problem });
  }
  if (issues.length) throw new ValidationError("The submitted values are not valid", issues);
  return [...fields.keys()]
    .filter((name) => given.has(name))
    .map((name) => ({ unique_system_name: name, submitted_value: given.get(name) ?? "" }));
}

/** The form owner's user id, or the datalists of the form that the owner holds. */
export type DatalistOwner = string | { ownedDatalists: readonly string[] };

async function problemWith(
  ctx: Context,
  field: FormField,
  value: string,
  owner: DatalistOwner,
): Promise<string | null> {
  switch (field.type) {
    case "text":
    case "textarea":
      return field.max_length !== undefined && [...value].length > field.max_length
        ? `must be at most ${field.max_length} characters`
        : null;
    case "email":
      return v.is(emailSchema, value) ? null : "must be an e-mail address";
    case "number":
      return numberProblem(field, value);
    case "date":
      return isIsoDate(value) ? null : "must be a date written YYYY-MM-DD";
    case "select":
    case "radio":
      return (await offered(ctx, field, [value], owner)) ? null : "is not one of the options";
    case "checkbox": {
      const chosen = value.split("|");
      if (new Set(chosen).size !== chosen.length) return "names an option more than once";
      return (await offered(ctx, field, chosen, owner)) ? null : "is not one of the options";
    }
    case "file":
      return filesProblem(field, value);
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

async function offered(
  ctx: Context,
  field: { options?: string[]; datalist_id?: string },
  chosen: string[],
  owner: DatalistOwner,
): Promise<boolean> {
  if (field.options) return chosen.every((choice) => field.options?.includes(choice));
  const datalistId = field.datalist_id ?? "";
  const owned =
    typeof owner === "string"
      ? await ownsDatalist(ctx, owner, datalistId)
      : owner.ownedDatalists.includes(datalistId);
  if (!owned) return false;
  for (const choice of chosen) {
    // One indexed lookup per choice, rather than reading the whole list.
    const { items } = await ctx.store.query(collections.datalistEntries, datalistId, {
      where: [{ field: "entry_value", op: "eq", value: choice }],
      limit: 1,
    });
    if (items.length === 0) return false;
  }
  return true;
}

function filesProblem(field: { max_files?: number }, value: string): string | null {
  const ids = attachmentIdsOf(value);
  if (!ids.every((id) => guidPattern.test(id))) return "must be attachment ids joined by |";
  if (new Set(ids).size !== ids.length) return "names an attachment more than once";
  if (field.max_files !== undefined && ids.length > field.max_files) {
    return `must hold at most ${field.max_files} files`;
  }
  return null;
}
