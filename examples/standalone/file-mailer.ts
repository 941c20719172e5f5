import { randomUUID } from "node:crypto";
import { link, mkdir, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { nodemailerMessage } from "formwork/adapters/smtp";
import type { Mailer } from "formwork/ports";
import nodemailer from "nodemailer";

/** Options of {@link createFileMailer}. */
export interface FileMailerOptions {
  /** The folder the `.eml` files go to; made when missing. */
  directory: string;
  /** The `From` address of every message. */
  from: string;
}

/**
 * A Mailer for local use without a mail server: each message is written, as the exact MIME
 * text an SMTP server would have received, to `<directory>/<id>.eml` (its delivery id), or
 * `<time>-<uuid>.eml` for a message without one. A message already written is not written
 * again, so a retry after a crash mid-send leaves one file, as a receiver deduping by
 * `Message-ID` would keep one message.
 */
export function createFileMailer(options: FileMailerOptions): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  return {
    async send(message) {
      const info = await transport.sendMail(nodemailerMessage(message, options.from));
      await mkdir(options.directory, { recursive: true });
      const stem = message.id
        ? message.id.replace(/[^A-Za-z0-9-]/g, "")
        : `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}`;
      // Written aside, then linked into place: a crash mid-write leaves no half file under
      // the final name, and a link onto an existing name fails, so a repeat is not written.
      const aside = join(options.directory, `.${stem}-${randomUUID()}.tmp`);
      await writeFile(aside, info.message as Buffer, { mode: 0o600 });
      try {
        await link(aside, join(options.directory, `${stem}.eml`));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      } finally {
        await rm(aside, { force: true });
      }
    },
  };
}
