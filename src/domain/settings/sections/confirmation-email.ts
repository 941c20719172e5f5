/**
 * `confirmationemailsettings` (docs/design.md §11): the e-mail S2 sends to the address a
 * submission gives, its subject and body Mustache templates over the submitted values
 * (webhooks/confirmation-email.ts writes and sends it).
 */
import Mustache from "mustache";
import * as v from "valibot";
import { emailSchema } from "../../../kernel/email.ts";
import type { FormRecord } from "../../forms/form-record.ts";
import { parseSection } from "../parsed-sections.ts";
import { definitionChecks } from "./definition-checks.ts";
import type { SettingsSection } from "./section.ts";

/** Most addresses besides the recipient field's that one confirmation e-mail goes to. */
export const maxAdditionalRecipients = 20;

/**
 * A Mustache template of at most `max` characters that Mustache can parse, nesting sections
 * at most {@link maxSectionDepth} deep (an unclosed tag or section is a 400 on write, not a
 * failure at each submission).
 */
function template(max: number) {
  return v.pipe(
    v.string("must be a string"),
    v.maxLength(max, `must be at most ${max} characters`),
    v.check((text) => templateProblem(text) !== unparsed, unparsed),
    v.check((text) => templateProblem(text) !== tooDeep, tooDeep),
  );
}

/**
 * How deep a template may nest sections: each level is a context every name inside is looked
 * up through, so a deeper one costs its renders time out of proportion to its size.
 */
export const maxSectionDepth = 32;

const unparsed = "must be a valid Mustache template";
const tooDeep = `must not nest sections more than ${maxSectionDepth} deep`;

/**
 * What is wrong with `text` as a template, as F2 says it: Mustache cannot parse it, or it
 * nests sections deeper than {@link maxSectionDepth}; `null` when neither.
 */
export function templateProblem(text: string): string | null {
  let tokens: unknown[];
  try {
    tokens = new Mustache.Writer().parse(text);
  } catch {
    return unparsed;
  }
  // A section token holds its own tokens at index 4.
  const stack: [unknown[], number][] = [[tokens, 1]];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [list, depth] = next;
    for (const token of list) {
      const children = (token as unknown[])[4];
      if (!Array.isArray(children)) continue;
      if (depth > maxSectionDepth) return tooDeep;
      stack.push([children, depth + 1]);
    }
  }
  return null;
}

const schema = v.pipe(
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

/** The `confirmationemailsettings` section. */
export const confirmationEmailSettings: SettingsSection<v.InferOutput<typeof schema>> = {
  name: "confirmationemailsettings",
  schema,
  audited: "email_settings_changed",
  issues(value, definition) {
    const check = definitionChecks(definition);
    const name = value.recipient_field;
    if (typeof name === "string" && name !== "") {
      const target = check.field(name, "recipient_field");
      if (target && target.type !== "email")
        check.issues.push({ path: "recipient_field", message: `${name} is not an e-mail field` });
    }
    return check.issues;
  },
};

/** The section as read when sending: whatever it holds that a message can use. */
const sendingSchema = v.looseObject({
  enabled: v.optional(v.boolean(), false),
  recipient_field: v.optional(v.string(), ""),
  additional_recipients: v.optional(v.array(v.unknown()), []),
  reply_to: v.optional(v.unknown()),
  subject: v.optional(v.string(), ""),
  body_text: v.optional(v.string(), ""),
});

/**
 * The form's confirmation e-mail settings as read when sending, or `null` when the section
 * is missing (read once a frozen form: parsed-sections.ts) or holds what no message can use.
 */
export function confirmationEmailSettingsOf(
  form: FormRecord,
): v.InferOutput<typeof sendingSchema> | null {
  const parsed = parseSection(
    sendingSchema,
    form.form_configuration[confirmationEmailSettings.name],
  );
  return parsed.success ? parsed.output : null;
}
