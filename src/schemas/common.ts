import * as v from "valibot";

/** An e-mail address, trimmed and lower-cased (kept in the kernel: the domain checks it too). */
export { emailSchema } from "../kernel/email.ts";

/** A non-empty name of at most 200 characters, trimmed. */
export const nameSchema = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.minLength(1, "must not be empty"),
  v.maxLength(200),
  // The trim is a transform JSON Schema cannot state: this pattern says what it leaves.
  v.metadata({ pattern: "^\\s*\\S(?:[\\s\\S]{0,198}\\S)?\\s*$" }),
);

const hex = (digits: number) => `[0-9a-fA-F]{${digits}}`;
const guidSource = `${hex(8)}-${hex(4)}-${hex(4)}-${hex(4)}-${hex(12)}`;

/**
 * A GUID in a path, as `parseGuid` reads it (docs/design.md §9): upper or lower case, optionally
 * wrapped in braces. Stated for the OpenAPI document; the routes parse with `parseGuid`.
 */
export const guidPathSchema = v.pipe(
  v.string(),
  v.regex(new RegExp(`^(?:${guidSource}|\\{${guidSource}\\})$`), "must be a GUID"),
  v.description("A GUID, in upper or lower case, optionally wrapped in braces (`{…}`)."),
);

/** A user id in a path (`local|<guid>` or `partner_<guid>|<guid>`), as `parseUserId` reads it. */
export const userIdPathSchema = v.pipe(
  v.string(),
  // Case-insensitive like `parseUserId`, spelled out: JSON Schema patterns have no flags.
  v.regex(
    new RegExp(
      `^(?:[lL][oO][cC][aA][lL]|[pP][aA][rR][tT][nN][eE][rR]_${guidSource})\\|${guidSource}$`,
    ),
    "must be a user id",
  ),
  v.description(
    "A user id, `local|<guid>` or `partner_<guid>|<guid>`, percent-encoded (`local%7C…`).",
  ),
);

/**
 * The paging parameters of the extension lists (a webhook's deliveries, the audit trail), as
 * S5 names them: `batchSize` (1 to 1000, `fallback` when absent) and the previous page's
 * `continuation_token` as `continuationToken`.
 */
export function pagingQuery(fallback: number) {
  return v.object({
    batchSize: v.optional(
      v.pipe(
        v.string(),
        v.regex(/^\d{1,4}$/, "must be a whole number"),
        // The bounds below apply to the number; this pattern states them for the document.
        v.metadata({ pattern: "^(?=\\d{1,4}$)0*(?:[1-9]\\d{0,2}|1000)$" }),
        v.transform(Number),
        v.minValue(1, "must be at least 1"),
        v.maxValue(1000, "must be at most 1000"),
      ),
      String(fallback),
    ),
    continuationToken: v.optional(v.pipe(v.string(), v.maxLength(4096))),
  });
}
