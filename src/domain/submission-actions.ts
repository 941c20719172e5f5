import { type Context, collections } from "../context.ts";
import type { AttemptOutcome } from "../ports/webhook-sender.ts";
import { isSuccess } from "../webhooks/retries.ts";
import { attemptDestination, attemptMail } from "./action-attempts.ts";
import { confirmationEmailOf } from "./confirmation-email.ts";
import { destinationOf, destinationPayload } from "./destination-post.ts";
import type { FormRecord } from "./form-record.ts";
import type { SubmissionRecord } from "./submission-record.ts";
import { updateDelivery } from "./webhook-deliveries.ts";
import {
  actionLogId,
  type OutboxEntry,
  outboxPartitionOf,
  pendingDelivery,
} from "./webhook-outbox.ts";
import { attemptRecord } from "./webhook-worker.ts";

/** The S2 flags that say which of the form's own actions failed at their first attempt. */
export interface ActionFlags {
  email_address_post_expected_but_failed: boolean;
  cloud_database_post_expected_but_failed: boolean;
}

/** How long past the first attempt's timeout S2's hold on a queued action lasts. */
const holdMarginMs = 60_000;

/**
 * After a submission is stored: the form's confirmation e-mail and destination post
 * (design.md §11), each when the form calls for it and the submission is not a draft.
 *
 * Each is first queued in the outbox, held by this call (so a crash here leaves it to the
 * worker once the hold ends), then attempted once, both at once, each given up after
 * `ctx.actions.attemptMs`. A delivered one leaves the outbox; a failed one is handed to the
 * worker for its retries (unless refused for good) and sets its flag. A failure to queue
 * sets the flag too: the action was expected and will not happen.
 */
export async function runPostSubmissionActions(
  ctx: Context,
  form: FormRecord,
  submission: SubmissionRecord,
): Promise<ActionFlags> {
  const flags: ActionFlags = {
    email_address_post_expected_but_failed: false,
    cloud_database_post_expected_but_failed: false,
  };
  if (submission.is_draft_submission) return flags;
  const email = confirmationEmailOf(form, submission);
  const destination = destinationOf(form);
  // No timer for a form without actions: most S2s (and its abort would fire for nothing).
  if (!email && !destination) return flags;
  const signal = AbortSignal.timeout(ctx.actions.attemptMs);
  const payload = destination && destinationPayload(form, submission);
  const [mailed, posted] = await Promise.all([
    email &&
      runAction(ctx, submission, "email", JSON.stringify(email), () =>
        attemptMail(ctx.mailer, email, signal),
      ),
    destination &&
      payload &&
      runAction(ctx, submission, "destination", payload, (id) =>
        attemptDestination(ctx, id, destination, payload, ctx.actions.attemptMs, signal),
      ),
  ]);
  flags.email_address_post_expected_but_failed = mailed === false;
  flags.cloud_database_post_expected_but_failed = posted === false;
  return flags;
}

/** Queues one action, makes its first attempt, and settles it. @returns whether it was delivered. */
async function runAction(
  ctx: Context,
  submission: SubmissionRecord,
  kind: "email" | "destination",
  payload: string,
  attempt: (id: string) => Promise<AttemptOutcome>,
): Promise<boolean> {
  const logId = actionLogId(kind, submission.form_id);
  const delivery = pendingDelivery(ctx, submission, logId, payload, kind);
  const partition = outboxPartitionOf(delivery.id);
  const holdEnd = ctx.now().getTime() + ctx.actions.attemptMs + holdMarginMs;
  const entry: OutboxEntry = {
    id: delivery.id,
    kind,
    form_id: submission.form_id,
    webhook_id: logId,
    due_at: new Date(holdEnd).toISOString(),
    lease_owner: `s2:${delivery.id}`,
    attempts_made: 1,
  };
  try {
    await ctx.store.create(collections.webhookDeliveries, logId, delivery);
    await ctx.store.create(collections.webhookOutbox, partition, entry);
  } catch {
    return false;
  }
  const outcome = await attempt(delivery.id);
  const delivered = isSuccess(outcome);
  const retry = !delivered && outcome.kind !== "refused";
  try {
    await updateDelivery(ctx, logId, delivery.id, (record) => {
      record.attempts.push(attemptRecord(1, outcome, ctx.now()));
      if (!retry) record.status = delivered ? "delivered" : "failed";
    });
    if (retry) {
      // The second attempt waits as long as a webhook's would.
      const dueAt = ctx.now().getTime() + ctx.actions.mailRetry.retryBaseMs;
      const due = { ...entry, lease_owner: null, due_at: new Date(dueAt).toISOString() };
      await ctx.store.replace(collections.webhookOutbox, partition, due);
      ctx.nudgeWebhooks();
    } else {
      await ctx.store.delete(collections.webhookOutbox, partition, delivery.id);
    }
  } catch {
    // The hold ends on its own and the worker makes the next attempt: nothing is lost.
  }
  return delivered;
}
