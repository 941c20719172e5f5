import * as v from "valibot";
import { ValidationError } from "../../kernel/errors.ts";
import { boundIssues, jsonBounds } from "../../kernel/json-bounds.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";

/** `<field_prefix>_<digits>`, as the interface gives for `unique_system_name`. */
export const systemNamePattern = /^[A-Za-z][A-Za-z0-9]*_\d+$/;

const guid = v.pipe(
  v.string(),
  v.regex(/^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$/, "must be a GUID"),
  v.toLowerCase(),
);
const optionText = v.pipe(
  v.string(),
  v.minLength(1, "must not be empty"),
  v.check((option) => !option.includes("|"), "must not contain |"),
);

const common = {
  unique_system_name: v.pipe(
    v.string(),
    v.regex(systemNamePattern, "must look like <prefix>_<digits>"),
  ),
  label: v.optional(v.pipe(v.string(), v.maxLength(1000)), ""),
  required: v.optional(v.boolean(), false),
};
const positiveInteger = v.pipe(v.number(), v.integer(), v.minValue(1));
const choices = {
  options: v.optional(v.array(optionText)),
  datalist_id: v.optional(guid),
};

/** The schema of one field of a form definition (docs/design.md §5). */
export const fieldSchema = v.variant("type", [
  v.looseObject({
    ...common,
    type: v.picklist(["text", "textarea"]),
    max_length: v.optional(positiveInteger),
  }),
  v.looseObject({ ...common, type: v.literal("email") }),
  v.looseObject({
    ...common,
    type: v.literal("number"),
    min: v.optional(v.number()),
    max: v.optional(v.number()),
  }),
  v.looseObject({ ...common, type: v.literal("date") }),
  v.pipe(
    v.looseObject({ ...common, type: v.picklist(["select", "radio", "checkbox"]), ...choices }),
    // Checked by `checkDefinition`, stated here for the OpenAPI document.
    v.metadata({
      oneOf: [{ required: ["options"] }, { required: ["datalist_id"] }],
      description: "Offers either `options` or the entries of `datalist_id`, one of the two.",
    }),
  ),
  v.looseObject({
    ...common,
    type: v.literal("hidden"),
    max_length: v.optional(positiveInteger),
    default_value: v.optional(v.string()),
  }),
  v.looseObject({
    ...common,
    type: v.literal("file"),
    max_files: v.optional(positiveInteger),
    max_file_size: v.optional(positiveInteger),
    accept: v.optional(v.array(v.pipe(v.string(), v.minLength(1)))),
  }),
]);

/** The schema of a form definition: pages of fields. */
export const formDefinitionSchema = v.looseObject({
  pages: v.array(
    v.looseObject({
      title: v.optional(v.string()),
      fields: v.array(fieldSchema),
    }),
  ),
});

/** A form's definition, as stored and rendered. */
export type FormDefinition = v.InferOutput<typeof formDefinitionSchema>;

/** One field of a form definition. */
export type FormField = v.InferOutput<typeof fieldSchema>;

/** Every field of a definition, page after page. */
export function fieldsOf(definition: FormDefinition): FormField[] {
  return definition.pages.flatMap((page) => page.fields);
}

/**
 * Whether the hosted page may fill `field` in from its address (`generalsettings.prefill_fields`,
 * docs/design.md §21): any field but a file upload, whose value is attachment ids.
 */
export function isPrefillable(field: FormField): boolean {
  return field.type !== "file";
}

/** What S2 looks up in a definition, built once per definition it is asked for. */
export interface CompiledDefinition {
  /** The fields by system name, in the definition's order. */
  fields: ReadonlyMap<string, FormField>;
  /** The system names of the file-upload fields. */
  fileFields: ReadonlySet<string>;
}

const compiled = new WeakMap<FormDefinition, CompiledDefinition>();

/**
 * The lookups of a definition. Those of a frozen definition (a form snapshot's, which is
 * one version of the form: form-snapshots.ts) are kept as long as the definition is.
 */
export function compileDefinition(definition: FormDefinition): CompiledDefinition {
  const held = compiled.get(definition);
  if (held) return held;
  const all = fieldsOf(definition);
  const result: CompiledDefinition = {
    fields: new Map(all.map((field) => [field.unique_system_name, field])),
    fileFields: new Set(
      all.filter((field) => field.type === "file").map((field) => field.unique_system_name),
    ),
  };
  // A definition that is not frozen may still change under what was built from it.
  if (Object.isFrozen(definition)) compiled.set(definition, result);
  return result;
}

/** The system names of the definition's file-upload fields. */
export function fileFieldNames(definition: FormDefinition): ReadonlySet<string> {
  return compileDefinition(definition).fileFields;
}

/**
 * Checks what a schema cannot: the bounds of docs/design.md §8, system names unique in the form, choice fields with either
 * options or a datalist, datalists that exist and belong to the form's owner, and a hidden
 * field's `default_value` within its `max_length`.
 * @throws {ValidationError} naming each field at fault.
 */
export async function checkDefinition(ctx: Context, definition: FormDefinition, ownerId: string) {
  const issues = boundIssues(definition, jsonBounds.definitionBytes, "form_definition");
  if (issues.length)
    throw new ValidationError("The form definition is too large or too deep", issues);
  const seen = new Set<string>();
  for (const [p, page] of definition.pages.entries()) {
    for (const [f, field] of page.fields.entries()) {
      const path = `form_definition.pages.${p}.fields.${f}`;
      const name = field.unique_system_name;
      if (seen.has(name)) issues.push({ path, message: `${name} is used by another field` });
      seen.add(name);
      if (field.type === "hidden") issues.push(...defaultIssues(field, path));
      if (field.type !== "select" && field.type !== "radio" && field.type !== "checkbox") continue;
      if (Boolean(field.options) === Boolean(field.datalist_id)) {
        issues.push({ path, message: `${name} needs either options or a datalist_id` });
      } else if (field.datalist_id) {
        const list = await ctx.store.get(collections.datalists, ownerId, field.datalist_id);
        if (!list)
          issues.push({ path, message: `${name} names a datalist the form's owner does not have` });
      }
    }
  }
  if (issues.length) throw new ValidationError("The form definition is not valid", issues);
}

/** A hidden field's `default_value` longer than its `max_length`: S2 would refuse it. */
function defaultIssues(field: Extract<FormField, { type: "hidden" }>, path: string) {
  const { default_value: value, max_length: max } = field;
  if (value === undefined || max === undefined || [...value].length <= max) return [];
  return [{ path: `${path}.default_value`, message: `must be at most ${max} characters` }];
}
