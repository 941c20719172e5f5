import * as v from "valibot";
import { ValidationError } from "./errors.ts";

/**
 * Parses `input` with a valibot schema.
 * @throws {ValidationError} listing every issue with its dotted path.
 */
export function parseWith<S extends v.GenericSchema>(
  schema: S,
  input: unknown,
  message = "The request is not valid",
): v.InferOutput<S> {
  const result = v.safeParse(schema, input);
  if (result.success) return result.output;
  const issues = result.issues.map((issue) => ({
    path: v.getDotPath(issue) ?? "",
    message: issue.message,
  }));
  throw new ValidationError(message, issues);
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
