import type { Timestamps } from "../../kernel/timestamps.ts";

/**
 * The events a webhook can be called for (docs/design.md §7): a new submission (S2, or an
 * S6 that clears the draft flag), an edit of a submission that is no draft (S6), and a
 * deletion (S7). The event's name is the payload's `type`.
 */
export const webhookEvents = [
  "form_submission.created",
  "form_submission.updated",
  "form_submission.deleted",
] as const;

/** One of {@link webhookEvents}. */
export type WebhookEvent = (typeof webhookEvents)[number];

/** What a webhook is called for when W2 names no events: the one event the interface knows. */
export const defaultWebhookEvents: readonly WebhookEvent[] = ["form_submission.created"];

/** A stored submission webhook. Partition: its form id. */
export interface WebhookRecord extends Timestamps {
  id: string;
  form_id: string;
  created_by_user_id: string;
  webhook_name: string;
  webhook_destination_url: string;
  http_header_key: string;
  http_header_value: string;
  /** The Standard Webhooks signing secret, `whsec_<base64>`; it must be kept to sign with. */
  webhook_shared_secret: string;
  /** The events it is called for; absent on webhooks added before there was a choice. */
  events?: WebhookEvent[];
}

/** The events `webhook` is called for. */
export function eventsOf(webhook: WebhookRecord): readonly WebhookEvent[] {
  return webhook.events ?? defaultWebhookEvents;
}

/** The webhooks among `webhooks` that are called for `event`. */
export function webhooksFor(
  webhooks: readonly WebhookRecord[],
  event: WebhookEvent,
): WebhookRecord[] {
  return webhooks.filter((webhook) => eventsOf(webhook).includes(event));
}
