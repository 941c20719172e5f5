import * as v from "valibot";

/** An e-mail address, trimmed and lower-cased. */
export const emailSchema = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(254),
  v.email("must be an e-mail address"),
);
