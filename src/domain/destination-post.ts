import * as v from "valibot";
import type { FormRecord } from "./form-record.ts";
import { publicSubmission, type SubmissionRecord } from "./submission-record.ts";

/** `form_configuration.destinationsettings` (design.md §11), as read when posting. */
const settingsSchema = v.looseObject({
  enabled: v.optional(v.boolean(), false),
  destination_url: v.optional(v.string(), ""),
  http_header_key: v.optional(v.string(), ""),
  http_header_value: v.optional(v.string(), ""),
});

/** Where a form's destination post goes, with its custom header if any. */
export interface DestinationTarget {
  url: URL;
  headers: Record<string, string>;
}

/**
 * The form's data destination (the "cloud database" post), or `null` when the section is
 * missing, not `enabled`, or names no `http`/`https` URL. Read at each attempt, like a
 * webhook, so that a changed header or URL applies to the retries too.
 */
export function destinationOf(form: FormRecord): DestinationTarget | null {
  const parsed = v.safeParse(settingsSchema, form.form_configuration.destinationsettings);
  if (!parsed.success || !parsed.output.enabled) return null;
  const { destination_url, http_header_key, http_header_value } = parsed.output;
  if (!URL.canParse(destination_url)) return null;
  const url = new URL(destination_url);
  if (url.protocol !== "http:" && url.protocol !== "https:") return null;
  return { url, headers: http_header_key ? { [http_header_key]: http_header_value } : {} };
}

/**
 * The body of a destination post: the webhook payload's `data` (the form id and the stored
 * submission) plus the form's name.
 */
export function destinationPayload(form: FormRecord, submission: SubmissionRecord): string {
  return JSON.stringify({
    form_id: submission.form_id,
    form_name: form.form_configuration.settings.form_name,
    form_submission: publicSubmission(submission),
  });
}
