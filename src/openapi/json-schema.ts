import { type JsonSchema, toJsonSchema } from "@valibot/to-json-schema";
import type * as v from "valibot";

/** A JSON Schema (2020-12, the dialect of OpenAPI 3.1) as a plain object. */
export type SchemaObject = Record<string, unknown>;

/**
 * Checks that JSON Schema cannot state. They are left out, so a document's schema accepts
 * a little more than the service does (an all-blank name, say); the service still answers
 * those with a 400 naming the field.
 */
const unstatedActions = ["check", "forward", "trim", "to_lower_case", "to_upper_case"];

/**
 * The JSON Schema of what a client may send for `schema`: the input side of each pipe,
 * before any transform. Any other action or schema that JSON Schema cannot express throws,
 * so that a new schema never slips into the document half converted.
 */
export function jsonSchemaOf(schema: v.GenericSchema): SchemaObject {
  const converted: JsonSchema = toJsonSchema(schema, {
    target: "draft-2020-12",
    typeMode: "input",
    errorMode: "throw",
    ignoreActions: unstatedActions,
    overrideAction: ({ valibotAction, jsonSchema }) => {
      if (valibotAction.type === "email") return emailPattern(valibotAction, jsonSchema);
      const regex = (valibotAction as v.RegexAction<string, never>).requirement;
      if (valibotAction.type !== "regex" || !regex.flags) return undefined;
      // JSON Schema patterns have no flags: a case-insensitive pattern is left out whole.
      const { pattern, ...rest } = jsonSchema as SchemaObject;
      return pattern === regex.source ? rest : jsonSchema;
    },
  });
  const { $schema: _dialect, ...rest } = converted as SchemaObject;
  return rest;
}

/**
 * valibot's own e-mail check, stated as a pattern: `format: email` accepts addresses it
 * refuses (quoted local parts, IP literals). The addresses are trimmed first, hence the spaces.
 */
function emailPattern(action: unknown, jsonSchema: JsonSchema): SchemaObject {
  const { format: _format, ...rest } = jsonSchema as SchemaObject;
  const source = (action as v.EmailAction<string, never>).requirement.source;
  return {
    ...rest,
    pattern: `^\\s*(?:${source.replace(/^\^|\$$/g, "")})\\s*$`,
    description: "An e-mail address; surrounding spaces are trimmed and it is kept in lower case.",
  };
}

/**
 * The parameters of a query (or headers) schema: one per property of its object, required
 * when the schema requires it.
 */
export function parametersOf(
  schema: v.GenericSchema,
  where: "query" | "header",
  descriptions: Record<string, string> = {},
): SchemaObject[] {
  const object = jsonSchemaOf(schema);
  const properties = (object.properties ?? {}) as Record<string, SchemaObject>;
  const required = new Set((object.required ?? []) as string[]);
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: where,
    required: required.has(name),
    ...(descriptions[name] ? { description: descriptions[name] } : {}),
    schema: property,
  }));
}
