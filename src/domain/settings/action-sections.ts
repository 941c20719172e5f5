/**
 * The schemas F2 checks the form's two actions against (docs/design.md §11):
 * `confirmationemailsettings` and `destinationsettings`. What they name in the form (the
 * recipient field) is checked against the definition in rule-sections.ts.
 */
import Mustache from "mustache";
import * as v from "valibot";
import { emailSchema } from "../../kernel/email.ts";
import { customHeaderEntries, headerPairComplete, headerPairIssue } from "./custom-headers.ts";

/** Most addresses besides the recipient field's that one confirmation e-mail goes to. */
export const maxAdditionalRecipients = 20;

/**
 * A Mustache template of at most `max` characters that Mustache can parse (an unclosed tag
 * or section is a 400 on write, not a failure at each submission).
 */
function template(max: number) {
  return v.pipe(
    v.string("must be a string"),
    v.maxLength(max, `must be at most ${max} characters`),
    v.check((text) => templateProblem(text) === null, "must be a valid Mustache template"),
  );
}

/** Why Mustache cannot parse `text`, or `null` when it can. */
export function templateProblem(text: string): string | null {
  try {
    new Mustache.Writer().parse(text);
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** `confirmationemailsettings`: the e-mail S2 sends to the address a submission gives. */
export const confirmationEmailSchema = v.pipe(
  v.looseObject({
    enabled: v.optional(v.boolean("must be true or false"), false),
    recipient_field: v.optional(v.string("must be a string")),
    additional_recipients: v.optional(
      v.pipe(
        v.array(emailSchema, "must be a list of e-mail addresses"),
        v.maxLength(maxAdditionalRecipients, `must hold at most ${maxAdditionalRecipients}`),
      ),
      [],
    ),
    reply_to: v.optional(emailSchema),
    subject: v.optional(template(998)),
    body_text: v.optional(template(20_000)),
  }),
  v.forward(
    v.check((s) => !s.enabled || Boolean(s.recipient_field), "is required when enabled"),
    ["recipient_field"],
  ),
);

/** A destination URL as the webhook address guard reads it, before any name lookup. */
const destinationUrl = v.pipe(
  v.string("must be a string"),
  v.trim(),
  v.maxLength(2048),
  v.url("must be a URL"),
  v.regex(/^https?:\/\//i, "must be http or https"),
  v.check((url) => {
    // One that does not parse is already refused above.
    const parsed = URL.parse(url);
    return parsed === null || (!parsed.username && !parsed.password);
  }, "must not carry credentials"),
);

/** `destinationsettings`: where S2 posts each submission (the "cloud database" post). */
export const destinationSchema = v.pipe(
  v.looseObject({
    enabled: v.optional(v.boolean("must be true or false"), false),
    destination_url: v.optional(destinationUrl),
    ...customHeaderEntries,
  }),
  v.forward(
    v.check((s) => !s.enabled || Boolean(s.destination_url), "is required when enabled"),
    ["destination_url"],
  ),
  v.forward(
    v.check((body) => headerPairComplete(body), headerPairIssue),
    ["http_header_key"],
  ),
);
