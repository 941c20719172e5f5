import * as v from "valibot";

/** An e-mail address, trimmed and lower-cased. */
export const emailSchema = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.toLowerCase(),
  v.maxLength(254),
  v.email("must be an e-mail address"),
);

/** A non-empty name of at most 200 characters, trimmed. */
export const nameSchema = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.minLength(1, "must not be empty"),
  v.maxLength(200),
);
