import type { FormRecord } from "../forms/form-record.ts";
import { publicSubmission, type SubmissionRecord } from "../records/submission-record.ts";
import { destinationSettingsOf } from "../settings/sections/destination.ts";

/** Where a form's destination post goes, with its custom header if any. */
export interface DestinationTarget {
  url: URL;
  headers: Record<string, string>;
}

/**
 * The form's data destination (the "cloud database" post), or `null` when the section is
 * missing, not `enabled`, or does not pass F2's schema (a section stored before F2 checked
 * it: a bad URL or header posts nothing rather than failing). Read at each attempt, like a
 * webhook, so that a changed header or URL applies to the retries too.
 */
export function destinationOf(form: FormRecord): DestinationTarget | null {
  const settings = destinationSettingsOf(form);
  if (!settings?.enabled || !settings.destination_url) return null;
  const { destination_url, http_header_key, http_header_value } = settings;
  const url = new URL(destination_url);
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
