import { type Mailer, type MailMessage, MailRejectedError } from "formwork/ports";
import nodemailer from "nodemailer";

/** Options of {@link createSmtpMailer}. */
export interface SmtpMailerOptions {
  /**
   * The server, as a URL: `smtp://user:pass@mail.example.com:587` (STARTTLS when the server
   * offers it), `smtps://…:465` (TLS from the start), `smtp://localhost:25` (plain, local).
   */
  url: string;
  /** The `From` address of every message, e.g. `Forms <forms@example.com>`. */
  from: string;
  /**
   * Milliseconds that connecting, the greeting and each later wait on the socket may take,
   * so that a server that accepts the connection and never answers fails in bounded time.
   * @default 5000
   */
  timeoutMs?: number;
}

/**
 * The default Mailer: SMTP through nodemailer, one connection per message. A permanent
 * refusal (an SMTP 5xx reply, a recipient refused) rejects with `MailRejectedError`; a
 * server down, a timeout or a 4xx reply rejects with the error nodemailer gave.
 */
export function createSmtpMailer(options: SmtpMailerOptions): Mailer {
  const timeoutMs = options.timeoutMs ?? 5000;
  const transport = nodemailer.createTransport(
    {
      url: options.url,
      connectionTimeout: timeoutMs,
      greetingTimeout: timeoutMs,
      socketTimeout: timeoutMs,
      dnsTimeout: timeoutMs,
    },
    { from: options.from },
  );
  return {
    async send(message: MailMessage) {
      let info: { rejected?: unknown[] };
      try {
        info = await transport.sendMail(nodemailerMessage(message, options.from));
      } catch (error) {
        const code = (error as { responseCode?: number }).responseCode ?? 0;
        if (code >= 500) {
          throw new MailRejectedError(error instanceof Error ? error.message : String(error), {
            cause: error,
          });
        }
        throw error;
      }
      if (info.rejected?.length) {
        throw new MailRejectedError(`the server refused ${info.rejected.join(", ")}`);
      }
    },
  };
}

/**
 * The message as nodemailer takes it, from `from`. Addresses go as objects, never as text
 * nodemailer would parse into a list, and the subject loses any line break on the way. A
 * message with an `id` gets the `Message-ID` `<id@domain of from>`, the same on every
 * attempt, so that a receiver can drop a repeat (RFC 5322 §3.6.4: one message, one id).
 */
export function nodemailerMessage(message: MailMessage, from: string) {
  return {
    from,
    to: message.to.map((address) => ({ name: "", address })),
    ...(message.replyTo ? { replyTo: { name: "", address: message.replyTo } } : {}),
    ...(message.id ? { messageId: messageIdOf(message.id, from) } : {}),
    subject: message.subject.replace(/[\r\n]+/g, " "),
    text: message.text,
  };
}

/** `<id@domain>`, the domain taken from the sender's address (`Forms <forms@example.com>`). */
function messageIdOf(id: string, from: string): string {
  const domain = /@([A-Za-z0-9.-]+)>?\s*$/.exec(from)?.[1] ?? "formwork.invalid";
  return `<${id.replace(/[^A-Za-z0-9.-]/g, "")}@${domain}>`;
}
