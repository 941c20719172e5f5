import * as v from "valibot";
import { listTypes } from "../domain/datalists/index.ts";
import { nameSchema } from "./common.ts";

const listType = v.picklist(listTypes, `must be one of ${listTypes.join(", ")}`);
const description = v.pipe(v.string(), v.maxLength(5000));

/** Body of D1: a datalist's settings. */
export const createDatalistBody = v.object({
  settings: v.object({
    list_name: nameSchema,
    list_description: v.optional(description, ""),
    list_type: v.optional(listType, "alphanumeric"),
  }),
});

/** Body of D2: the settings to change. */
export const updateDatalistBody = v.object({
  settings: v.object({
    list_name: v.optional(nameSchema),
    list_description: v.optional(description),
    list_type: v.optional(listType),
  }),
});

/** One entry item of D5. */
export const entryItem = v.object({
  entry_value: v.pipe(
    v.string("must be a string"),
    // Not only white space (JavaScript's `\s` is exactly what `trim` removes).
    v.regex(/\S/, "must not be empty"),
    v.maxLength(1000),
  ),
  sort_order: v.optional(v.pipe(v.number(), v.integer("must be an integer"), v.safeInteger())),
});

/**
 * The items of a D5 body, which may be one item, an array of items, or
 * `{ "entry_items": [ … ] }`.
 */
export function entryItemsOf(body: unknown): unknown {
  if (Array.isArray(body)) return body;
  if (body && typeof body === "object" && "entry_items" in body) return body.entry_items;
  return [body];
}
