import Mustache from "mustache";
import * as v from "valibot";
import type { MailMessage } from "../../ports/mailer.ts";
import type { FormRecord } from "../forms/form-record.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import {
  confirmationEmailSettingsOf,
  templateProblem,
} from "../settings/sections/confirmation-email.ts";

const address = v.pipe(v.string(), v.trim(), v.email());

/**
 * The confirmation e-mail a stored submission calls for, or `null` when none: the section
 * is missing, not `enabled`, or the recipient field holds no e-mail address (it may have
 * been removed from the form since), or a template does not parse.
 *
 * `subject` and `body_text` are Mustache templates over the submitted values by
 * `unique_system_name` and `form_name`: values are escaped, a missing one renders empty.
 * An address that is not exactly one e-mail address is left out, and the subject is made
 * one line, so that no submitted value can add a header or a recipient.
 */
export function confirmationEmailOf(
  form: FormRecord,
  submission: SubmissionRecord,
): MailMessage | null {
  const settings = confirmationEmailSettingsOf(form);
  if (!settings?.enabled) return null;
  // F2 refuses such templates; one stored before it did sends nothing rather than failing S2.
  if (templateProblem(settings.subject) || templateProblem(settings.body_text)) return null;
  const view: Record<string, string> = {};
  for (const field of submission.form_fields) {
    view[field.unique_system_name] = field.submitted_value;
  }
  view.form_name = form.form_configuration.settings.form_name;
  const submitted = view[settings.recipient_field];
  const recipient = settings.recipient_field ? addressOf(submitted) : null;
  if (!recipient) return null;
  const to = [recipient];
  for (const extra of settings.additional_recipients) {
    const other = addressOf(extra);
    if (other && !to.includes(other)) to.push(other);
  }
  const message: MailMessage = {
    to,
    subject: oneLine(render(settings.subject, view)),
    text: render(settings.body_text, view),
  };
  const replyTo = addressOf(settings.reply_to);
  if (replyTo) message.replyTo = replyTo;
  return message;
}

/** A bare e-mail address, or `null` for anything else (CR/LF, lists, display names). */
function addressOf(value: unknown): string | null {
  const parsed = v.safeParse(address, value);
  return parsed.success && !/[\s,;<>"]/.test(parsed.output) ? parsed.output : null;
}

function render(template: string, view: Record<string, string>): string {
  // A writer per message: Mustache's shared writer caches every template it has seen.
  return new Mustache.Writer().render(template, view);
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, " ").trim();
}
