/**
 * `destinationsettings`, the "cloud database" post (docs/design.md §11): where S2 posts each
 * stored submission, with an optional custom header (webhooks/destination-post.ts posts it).
 */
import * as v from "valibot";
import type { FormRecord } from "../../forms/form-record.ts";
import { customHeaderEntries, headerPairComplete, headerPairIssue } from "../custom-headers.ts";
import { parseSection } from "../parsed-sections.ts";
import type { SettingsSection } from "./section.ts";

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
  v.description(
    "An http(s) URL without credentials. Like a webhook's, it must resolve to a public address unless the service allows private ones.",
  ),
);

const schema = v.pipe(
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

/** The `destinationsettings` section. */
export const destinationSettings: SettingsSection<v.InferOutput<typeof schema>> = {
  name: "destinationsettings",
  schema,
  audited: "destination_settings_changed",
  // Whenever a URL is given, enabled or not, as W2 checks every webhook's: a disabled
  // destination is enabled by an F2 that gives its URL again, checked then too.
  destinations: ({ destination_url }) =>
    destination_url ? [{ path: "destination_url", url: destination_url }] : [],
};

/**
 * The form's destination settings as F2's schema reads them, or `null` when the section is
 * missing or does not pass it (a section stored before F2 checked it). A frozen form's is
 * parsed once (parsed-sections.ts).
 */
export function destinationSettingsOf(form: FormRecord): v.InferOutput<typeof schema> | null {
  const parsed = parseSection(schema, form.form_configuration[destinationSettings.name]);
  return parsed.success ? parsed.output : null;
}
