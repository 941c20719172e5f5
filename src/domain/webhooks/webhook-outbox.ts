import { newId } from "../../kernel/ids.ts";
import { createdAt, type Timestamps } from "../../kernel/timestamps.ts";
import type { BatchOp } from "../../ports/store.ts";
import type { AttemptOutcome } from "../../ports/webhook-sender.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { publicSubmission, type SubmissionRecord } from "../records/submission-record.ts";
import { type WebhookEvent, type WebhookRecord, webhooksFor } from "../records/webhook-record.ts";
import { outboxPartitionOf } from "./outbox-partitions.ts";

export { outboxPartitionOf } from "./outbox-partitions.ts";

/**
 * What an outbox entry delivers: a message to a webhook, or one of the form's own actions
 * after a submission, its confirmation e-mail or its destination post (docs/design.md §11).
 */
export type DeliveryKind = "webhook" | "email" | "destination";

/**
 * One message to one webhook, or one action of a form, with every attempt made.
 * Partition: the webhook id, or for an action {@link actionLogId}.
 */
export interface DeliveryRecord extends Timestamps {
  /** Also the message's `webhook-id`. */
  id: string;
  /** What it delivers; absent on records written before there were other kinds: a webhook. */
  kind?: DeliveryKind;
  /** The webhook id, or for an action {@link actionLogId}: the partition of its record. */
  webhook_id: string;
  form_id: string;
  submission_id: string;
  event_type: string;
  /** The exact JSON body sent on every attempt. */
  payload: string;
  status: "pending" | "delivered" | "failed";
  attempts: AttemptRecord[];
}

/** What one attempt came to, as kept in the delivery record. */
export interface AttemptRecord {
  attempt: number;
  at: string;
  outcome: AttemptOutcome["kind"];
  status_code?: number;
  message?: string;
}

/**
 * A delivery waiting for its next attempt. Partition: {@link outboxPartitionOf} its id (or
 * the legacy `due`, for entries queued before the outbox was spread).
 */
export interface OutboxEntry {
  /** The delivery id. */
  id: string;
  /** As in the delivery record; absent: a webhook. */
  kind?: DeliveryKind;
  form_id: string;
  /** As in the delivery record: the partition of the delivery record. */
  webhook_id: string;
  /** When it may next be claimed: now for a new one, the lease's end for a claimed one. */
  due_at: string;
  /** The instance holding it, while one does. */
  lease_owner: string | null;
  attempts_made: number;
}

/** Where the delivery records of a form's e-mails or destination posts live. */
export function actionLogId(kind: Exclude<DeliveryKind, "webhook">, formId: string): string {
  return `${kind}:${formId}`;
}

/**
 * The batch ops that queue one delivery of a new submission per webhook in `webhooks` called
 * for it (its delivery record and its outbox entry), for S2 (or S6) to write in the batch of
 * the submission. Call `ctx.nudgeWebhooks()` once they are written.
 */
export function submissionCreatedOps(
  ctx: Context,
  submission: SubmissionRecord,
  webhooks: readonly WebhookRecord[],
): BatchOp[] {
  return submissionEventOps(ctx, "form_submission.created", submission, webhooks);
}

/**
 * The batch ops that queue one delivery of `event` about `submission` per webhook in
 * `webhooks` called for it, for the batch that makes the event happen (S2, S6, S7), so that
 * an event is sent if and only if its change was written (docs/design.md §7). A deletion
 * carries only the submission's id: what was deleted is not sent anywhere again.
 */
export function submissionEventOps(
  ctx: Context,
  event: WebhookEvent,
  submission: SubmissionRecord,
  webhooks: readonly WebhookRecord[],
): BatchOp[] {
  const called = webhooksFor(webhooks, event);
  if (called.length === 0) return [];
  const form_submission =
    event === "form_submission.deleted" ? { id: submission.id } : publicSubmission(submission);
  const payload = JSON.stringify({
    type: event,
    timestamp: ctx.now().toISOString(),
    data: { form_id: submission.form_id, form_submission },
  });
  return called.flatMap((webhook) => {
    const delivery = pendingDelivery(ctx, submission, webhook.id, payload, undefined, event);
    return newDeliveryOps(delivery, outboxEntryOf(ctx, delivery));
  });
}

/** The batch ops that write a new delivery record in its log and its entry in the outbox. */
export function newDeliveryOps(delivery: DeliveryRecord, entry: OutboxEntry): BatchOp[] {
  return [
    {
      op: "create",
      collection: collections.webhookDeliveries,
      partition: delivery.webhook_id,
      record: delivery,
    },
    outboxEntryOp(entry),
  ];
}

/**
 * A new pending delivery announcing `event` (by default a new submission) about `submission`,
 * logged under `logId` (a webhook's id, or an action's log: {@link actionLogId}); `kind` is
 * absent for a webhook.
 */
export function pendingDelivery(
  ctx: Context,
  submission: SubmissionRecord,
  logId: string,
  payload: string,
  kind?: Exclude<DeliveryKind, "webhook">,
  event: WebhookEvent = "form_submission.created",
): DeliveryRecord {
  return {
    id: newId(),
    ...(kind ? { kind } : {}),
    webhook_id: logId,
    form_id: submission.form_id,
    submission_id: submission.id,
    event_type: event,
    payload,
    status: "pending",
    attempts: [],
    ...createdAt(ctx.now()),
  };
}

/** The batch op that puts a delivery in the outbox, due now, with its attempt count reset. */
export function queueDeliveryOp(ctx: Context, delivery: DeliveryRecord): BatchOp {
  return outboxEntryOp(outboxEntryOf(ctx, delivery));
}

/** The batch op that creates an outbox entry, in its partition (outbox-partitions.ts). */
function outboxEntryOp(entry: OutboxEntry): BatchOp {
  return {
    op: "create",
    collection: collections.webhookOutbox,
    partition: outboxPartitionOf(entry.id),
    record: entry,
  };
}

/** The outbox entry of a delivery of any kind, due now, with its attempt count reset. */
export function outboxEntryOf(ctx: Context, delivery: DeliveryRecord): OutboxEntry {
  return {
    id: delivery.id,
    ...(delivery.kind ? { kind: delivery.kind } : {}),
    form_id: delivery.form_id,
    webhook_id: delivery.webhook_id,
    due_at: ctx.now().toISOString(),
    lease_owner: null,
    attempts_made: 0,
  };
}
