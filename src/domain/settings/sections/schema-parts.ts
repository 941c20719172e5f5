/** The parts the sections' schemas share (docs/design.md §11). */
import * as v from "valibot";

/** A field's `unique_system_name`, as a section names it. */
export const fieldName = v.pipe(v.string(), v.minLength(1, "must name a field"));

/** A datalist id, kept in lower case. */
export const guid = v.pipe(
  v.string(),
  v.regex(/^[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}$/, "must be a GUID"),
  v.toLowerCase(),
);

/** A JsonLogic expression: any JSON, checked for known operators against the form. */
export const expression = v.unknown();

/**
 * A stored section as `schema` reads it, or `undefined` when it does not parse: what the
 * engine compiles is read leniently, so a stored section never makes a request fail.
 */
export function lenient<S extends v.GenericSchema>(
  schema: S,
  stored: unknown,
): v.InferOutput<S> | undefined {
  const parsed = v.safeParse(schema, stored);
  return parsed.success ? parsed.output : undefined;
}
