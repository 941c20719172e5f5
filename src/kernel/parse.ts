import * as v from "valibot";
import { ValidationError, type ValidationIssue } from "./errors.ts";

/**
 * Parses `input` with a valibot schema. A JSON array is never an object here, as in JSON
 * Schema (the OpenAPI document's `type: object`), although valibot's object and record
 * schemas take one: `[]` would otherwise pass for an object whose every key is optional.
 * @throws {ValidationError} listing every issue with its dotted path.
 */
export function parseWith<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  message = "The request is not valid",
): v.InferOutput<S> {
  const arrays: ValidationIssue[] = [];
  if (takesArrays(schema)) arraysAsObjects(schema, input, "", arrays);
  if (arrays.length) throw new ValidationError(message, arrays);
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const issues = result.issues.map((issue) => ({
    path: v.getDotPath(issue) ?? "",
    message: issue.message,
  }));
  throw new ValidationError(message, issues);
}

/** The parts of a valibot schema that say what it holds (its public properties). */
interface SchemaParts {
  type: string;
  wrapped?: SchemaParts;
  entries?: Record<string, SchemaParts>;
  value?: SchemaParts;
  item?: SchemaParts;
}

const objectTypes = new Set(["object", "loose_object", "strict_object", "object_with_rest"]);
const optionalTypes = new Set(["optional", "exact_optional", "nullish"]);

/** The schema `schema` wraps (`optional`, `nullable`, …), or itself. */
function unwrapped(schema: SchemaParts): SchemaParts {
  let inner = schema;
  while (inner.wrapped) inner = inner.wrapped;
  return inner;
}

/**
 * The schemas it holds: an object's entries, a record's values, an array's items. A union's
 * options are not followed: no body holds a union with an option that takes an array.
 */
function partsOf(schema: SchemaParts): SchemaParts[] {
  const inner = unwrapped(schema);
  if (objectTypes.has(inner.type)) return Object.values(inner.entries ?? {});
  if (inner.type === "record") return inner.value ? [inner.value] : [];
  if (inner.type === "array") return inner.item ? [inner.item] : [];
  return [];
}

const taking = new WeakMap<object, boolean>();

/**
 * Whether valibot would take an array somewhere in `schema` where it reads an object: a
 * record, or an object whose every key is optional (a required key refuses an array, which
 * has none). Remembered per schema, so S2's body, which has none, is not walked (hot path).
 */
function takesArrays(schema: v.GenericSchema | SchemaParts): boolean {
  const parts = schema as SchemaParts;
  let takes = taking.get(parts);
  if (takes !== undefined) return takes;
  taking.set(parts, false); // a schema that holds itself (lazy) is not followed round
  const inner = unwrapped(parts);
  const entries = Object.values(inner.entries ?? {});
  takes =
    inner.type === "record" ||
    (objectTypes.has(inner.type) && entries.every((entry) => optionalTypes.has(entry.type))) ||
    partsOf(parts).some(takesArrays);
  taking.set(parts, takes);
  return takes;
}

/** Adds an issue at each place where `input` holds an array that `schema` reads as an object. */
function arraysAsObjects(
  schema: SchemaParts,
  input: unknown,
  path: string,
  found: ValidationIssue[],
): void {
  const inner = unwrapped(schema);
  const at = (key: string) => (path ? `${path}.${key}` : key);
  if (Array.isArray(input)) {
    if (objectTypes.has(inner.type) || inner.type === "record") {
      found.push({ path, message: "must be a JSON object" });
    } else if (inner.type === "array" && inner.item && takesArrays(inner.item)) {
      for (const [n, item] of input.entries())
        arraysAsObjects(inner.item, item, at(String(n)), found);
    }
    return;
  }
  if (typeof input !== "object" || input === null) return;
  const values = input as Record<string, unknown>;
  for (const [key, entry] of Object.entries(inner.entries ?? {})) {
    if (Object.hasOwn(values, key) && takesArrays(entry)) {
      arraysAsObjects(entry, values[key], at(key), found);
    }
  }
  if (inner.type === "record" && inner.value && takesArrays(inner.value)) {
    for (const [key, value] of Object.entries(values)) {
      arraysAsObjects(inner.value, value, at(key), found);
    }
  }
}

/**
 * Reads a `0`/`1` query flag.
 * @returns `undefined` when absent.
 * @throws {ValidationError} for any other value.
 */
export function readFlag(url: URL, name: string): boolean | undefined {
  const value = url.searchParams.get(name);
  if (value === null) return undefined;
  if (value === "1") return true;
  if (value === "0") return false;
  throw new ValidationError(`${name} must be 0 or 1`, [{ path: name, message: "must be 0 or 1" }]);
}
