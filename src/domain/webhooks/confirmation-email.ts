import * as v from "valibot";
import type { MailMessage } from "../../ports/mailer.ts";
import type { FormRecord } from "../forms/form-record.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import {
  confirmationEmailSettingsOf,
  templateProblem,
} from "../settings/sections/confirmation-email.ts";
import { renderWithin, utf8Length } from "./template-rendering.ts";

/**
 * The most a confirmation e-mail renders, in bytes of UTF-8: the subject line as sent (the
 * line limit of RFC 5322) and the body.
 */
export const renderedEmailBounds = { subjectBytes: 998, bodyBytes: 64 * 1024 } as const;

/**
 * A confirmation e-mail that is not sent: what it renders passes
 * {@link renderedEmailBounds}. Its delivery is logged failed with `refused`, its reason.
 */
export interface RefusedMail {
  to: string[];
  refused: string;
}

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
 *
 * Rendering stops as soon as the subject or body passes {@link renderedEmailBounds}: the
 * e-mail is then a {@link RefusedMail}, whatever the size of the values it names.
 */
export function confirmationEmailOf(
  form: FormRecord,
  submission: SubmissionRecord,
): MailMessage | RefusedMail | null {
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
  const rendered = renderedMail(settings, view);
  if ("refused" in rendered) return { to, refused: rendered.refused };
  const message: MailMessage = { to, ...rendered };
  const replyTo = addressOf(settings.reply_to);
  if (replyTo) message.replyTo = replyTo;
  return message;
}

/** The subject and body of an e-mail, or why it is refused: one passes its bound. */
function renderedMail(
  templates: { subject: string; body_text: string },
  view: Record<string, string>,
): { subject: string; text: string } | { refused: string } {
  const { subjectBytes, bodyBytes } = renderedEmailBounds;
  // Rendered within the body's budget, then judged as sent: made one line, it never grows.
  const line = renderWithin(templates.subject, view, bodyBytes);
  const subject = line === null ? null : oneLine(line);
  if (subject === null || utf8Length(subject) > subjectBytes) {
    return { refused: `the rendered subject is longer than ${subjectBytes} bytes` };
  }
  const text = renderWithin(templates.body_text, view, bodyBytes);
  if (text === null) return { refused: `the rendered body is larger than ${bodyBytes} bytes` };
  return { subject, text };
}

/** A bare e-mail address, or `null` for anything else (CR/LF, lists, display names). */
function addressOf(value: unknown): string | null {
  const parsed = v.safeParse(address, value);
  return parsed.success && !/[\s,;<>"]/.test(parsed.output) ? parsed.output : null;
}

function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, " ").trim();
}
