/**
 * The SMTP `Mailer`, the usual sender of the forms' confirmation e-mails, through nodemailer:
 * an optional peer dependency, loaded only by whoever imports this entry.
 */
export { createSmtpMailer, nodemailerMessage, type SmtpMailerOptions } from "./smtp-mailer.ts";
