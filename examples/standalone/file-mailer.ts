import { randomUUID } from "node:crypto";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type Mailer, nodemailerMessage } from "formwork";
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
 * text an SMTP server would have received, to `<directory>/<time>-<uuid>.eml`.
 */
export function createFileMailer(options: FileMailerOptions): Mailer {
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true });
  return {
    async send(message) {
      const info = await transport.sendMail({ from: options.from, ...nodemailerMessage(message) });
      await mkdir(options.directory, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, "-")}-${randomUUID()}.eml`;
      await writeFile(join(options.directory, name), info.message as Buffer, { mode: 0o600 });
    },
  };
}
