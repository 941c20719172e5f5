/** The audit trail's query (extension, docs/design.md §25). */
import * as v from "valibot";

/** `GET …/audit`: a page size and the previous page's `continuation_token`. */
export const auditQuery = v.object({
  limit: v.optional(
    v.pipe(
      v.string(),
      v.regex(/^\d{1,4}$/, "must be a whole number"),
      // The bounds below apply to the number; this pattern states them for the document.
      v.metadata({ pattern: "^(?=\\d{1,4}$)0*(?:[1-9]\\d{0,2}|1000)$" }),
      v.transform(Number),
      v.minValue(1, "must be at least 1"),
      v.maxValue(1000, "must be at most 1000"),
    ),
    "100",
  ),
  cursor: v.optional(v.pipe(v.string(), v.maxLength(4096))),
});
