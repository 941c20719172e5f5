/**
 * The Mailer port: hands one e-mail to whatever carries it (an SMTP server, a folder of
 * `.eml` files, a test's inbox). The service renders the message and decides when it is
 * due and how often it is tried again; the mailer makes one attempt per call.
 */
export interface Mailer {
  /**
   * Sends one message. Resolves once the carrier has accepted it for every recipient.
   * @throws {MailRejectedError} when the carrier refuses it for good (an unknown recipient,
   *   a message it will never take): trying again cannot help.
   * @throws any other error for a failure that may pass (a server down, a timeout, a 4xx
   *   SMTP reply); the service tries again later.
   *
   * It must settle in bounded time (its own timeouts): the service never gives up on a send
   * in progress, since the carrier may still accept it, and never starts another attempt of
   * the same message while one is in progress.
   */
  send(message: MailMessage): Promise<void>;
}

/** One e-mail, as plain text. Header values never hold CR or LF (the service removes them). */
export interface MailMessage {
  /**
   * The same on every attempt and redelivery of one e-mail (its delivery id): the mailer
   * makes it the `Message-ID`, so that a receiver can tell a repeat (after a send whose
   * answer was lost, or a crash mid-send) from a new message.
   */
  id?: string;
  /** Recipient addresses, each a bare `local@domain`. */
  to: string[];
  /** The address replies go to, if not the sender. */
  replyTo?: string;
  subject: string;
  /** The plain-text body. */
  text: string;
}

/** A message the carrier refuses for good; {@link Mailer.send} rejects with it. */
export class MailRejectedError extends Error {
  override name = "MailRejectedError";
}
