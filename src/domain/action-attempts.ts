import type { Context } from "../context.ts";
import { type Mailer, type MailMessage, MailRejectedError } from "../ports/mailer.ts";
import type { AttemptOutcome } from "../ports/webhook-sender.ts";
import { destinationProblem } from "../webhooks/destination-guard.ts";
import { attemptDelivery } from "../webhooks/http-attempt.ts";
import type { DestinationTarget } from "./destination-post.ts";

/** An SMTP server's "accepted", so that a sent e-mail counts as delivered like a 2xx. */
const mailAccepted = 250;

/**
 * One attempt to send an e-mail, given up as a `timeout` once `signal` aborts (the mailer
 * may still be waiting on its socket; its own timeouts end that). A refusal for good is
 * `refused`, so it is not retried; any other failure is a `network_error`, retried.
 */
export function attemptMail(
  mailer: Mailer | undefined,
  message: MailMessage,
  signal: AbortSignal,
): Promise<AttemptOutcome> {
  if (!mailer) {
    return Promise.resolve({ kind: "refused", message: "no mailer is configured" });
  }
  const sent = mailer.send(message).then(
    (): AttemptOutcome => ({ kind: "response", status: mailAccepted }),
    (error: unknown): AttemptOutcome => {
      const reason = error instanceof Error ? error.message : String(error);
      return error instanceof MailRejectedError
        ? { kind: "refused", message: reason }
        : { kind: "network_error", message: reason };
    },
  );
  return withinSignal(sent, signal);
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
  const allowPrivate = ctx.allowPrivateWebhookDestinations;
  const attempt = async (): Promise<AttemptOutcome> => {
    const problem = await destinationProblem(target.url, allowPrivate);
    if (problem) return { kind: "refused", message: `the destination ${problem}` };
    const message = { url: target.url.href, id, payload, headers: target.headers };
    return attemptDelivery(message, { timeoutMs, allowPrivate, signal });
  };
  return withinSignal(attempt(), signal);
}

/** `outcome`, or a `timeout` as soon as `signal` aborts, whichever comes first. */
function withinSignal(
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
