import { type Mailer, type MailMessage, MailRejectedError } from "../../ports/mailer.ts";
import type { AttemptOutcome } from "../../ports/webhook-sender.ts";
import type { Context } from "../context.ts";
import type { DestinationTarget } from "./destination-post.ts";

/** An SMTP server's "accepted", so that a sent e-mail counts as delivered like a 2xx. */
const mailAccepted = 250;

/**
 * One attempt to send an e-mail. Never given up while the mailer works on it: an SMTP
 * server may accept a message after any deadline of ours, and trying again then would send
 * it twice. The mailer's own timeouts bound it (adapters/smtp/smtp-mailer.ts). A refusal for
 * good is `refused`, not retried; any other failure is a `network_error`, retried, with the
 * same Message-ID (`message.id`, the delivery id) so that receivers can drop a repeat.
 */
export function attemptMail(
  mailer: Mailer | undefined,
  message: MailMessage,
): Promise<AttemptOutcome> {
  if (!mailer) {
    return Promise.resolve({ kind: "refused", message: "no mailer is configured" });
  }
  return mailer.send(message).then(
    (): AttemptOutcome => ({ kind: "response", status: mailAccepted }),
    (error: unknown): AttemptOutcome => {
      const reason = error instanceof Error ? error.message : String(error);
      return error instanceof MailRejectedError
        ? { kind: "refused", message: reason }
        : { kind: "network_error", message: reason };
    },
  );
}

/**
 * One unsigned `POST` of a destination post, through the webhook address guard, given up
 * as a `timeout` once `signal` aborts (a slow name lookup included).
 */
export function attemptDestination(
  ctx: Context,
  id: string,
  target: DestinationTarget,
  payload: string,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  const attempt = async (): Promise<AttemptOutcome> => {
    const problem = await ctx.destinations.problem(target.url);
    if (problem) return { kind: "refused", message: `the destination ${problem}` };
    const message = { url: target.url.href, id, payload, headers: target.headers };
    return ctx.destinations.post(message, { timeoutMs, signal });
  };
  return withinSignal(attempt(), signal);
}

/** `outcome`, or a `timeout` as soon as `signal` aborts, whichever comes first. */
export function withinSignal(
  outcome: Promise<AttemptOutcome>,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  if (signal.aborted) return Promise.resolve({ kind: "timeout" });
  let stop = () => {};
  const aborted = new Promise<AttemptOutcome>((resolve) => {
    stop = () => resolve({ kind: "timeout" });
    signal.addEventListener("abort", stop, { once: true });
  });
  return Promise.race([outcome, aborted]).finally(() => signal.removeEventListener("abort", stop));
}
