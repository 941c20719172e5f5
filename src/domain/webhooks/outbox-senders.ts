import type { MailMessage } from "../../ports/mailer.ts";
import { retryAttempts } from "../../ports/webhook-retries.ts";
import type { DeliveryControl, DeliveryResult, WebhookSender } from "../../ports/webhook-sender.ts";
import type { Context } from "../context.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { collections } from "../records/collections.ts";
import type { WebhookRecord } from "../records/webhook-record.ts";
import { attemptMail } from "./action-attempts.ts";
import type { RefusedMail } from "./confirmation-email.ts";
import { destinationOf } from "./destination-post.ts";
import type { DeliveryRecord, OutboxEntry } from "./webhook-outbox.ts";

/** Makes the attempts of one delivery, from the attempt count of `control` on. */
export type Send = (control: DeliveryControl) => Promise<DeliveryResult>;

/**
 * How the worker delivers an outbox entry of any kind: a `Send`, a reason it may not be
 * attempted (`refused`), or `null` when what it delivered to is gone (a webhook removed).
 * Webhooks and destination posts go through the webhook sender (same guard, timeout and
 * retries; destination posts unsigned); e-mails through the mailer, with the same retry rule.
 */
export async function sendFor(
  ctx: Context,
  sender: WebhookSender,
  entry: OutboxEntry,
  delivery: DeliveryRecord,
): Promise<Send | { refused: string } | null> {
  if (entry.kind === "email") {
    // The delivery id is its Message-ID, the same on every attempt and redelivery.
    const stored = JSON.parse(delivery.payload) as MailMessage | RefusedMail;
    // Refused when first made (past its bounds): a redelivery is refused the same way.
    if ("refused" in stored) return { refused: stored.refused };
    const message = { ...stored, id: entry.id };
    const { mailer } = ctx;
    return (control) =>
      retryAttempts(() => attemptMail(mailer, message), control, ctx.actions.mailRetry);
  }
  let url: URL;
  let secret: string | undefined;
  let headers: Record<string, string>;
  if (entry.kind === "destination") {
    const form = await ctx.store.get<FormRecord>(collections.forms, entry.form_id, entry.form_id);
    const target = form ? destinationOf(form.record) : null;
    if (!target) return { refused: "the form has no destination any more" };
    ({ url, headers } = target);
  } else {
    const webhook = await ctx.store.get<WebhookRecord>(
      collections.webhooks,
      entry.form_id,
      entry.webhook_id,
    );
    if (!webhook) return null;
    const hook = webhook.record;
    url = new URL(hook.webhook_destination_url);
    secret = hook.webhook_shared_secret;
    headers = hook.http_header_key ? { [hook.http_header_key]: hook.http_header_value } : {};
  }
  const problem = await ctx.destinations.problem(url);
  if (problem) return { refused: problem };
  const message = { url: url.href, id: entry.id, payload: delivery.payload, secret, headers };
  return (control) => sender.deliver(message, control);
}
