import { type BatchOp, StoreConflictError } from "../../ports/store.ts";
import { isSuccess } from "../../ports/webhook-retries.ts";
import type { AttemptOutcome } from "../../ports/webhook-sender.ts";
import type { Context } from "../context.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { collections } from "../records/collections.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import { attemptDestination, attemptMail, withinSignal } from "./action-attempts.ts";
import { confirmationEmailOf } from "./confirmation-email.ts";
import { destinationOf, destinationPayload } from "./destination-post.ts";
import { attemptRecord } from "./outbox-delivery.ts";
import { updateDelivery } from "./webhook-deliveries.ts";
import {
  actionLogId,
  type DeliveryRecord,
  newDeliveryOps,
  type OutboxEntry,
  outboxEntryOf,
  outboxPartitionOf,
  pendingDelivery,
} from "./webhook-outbox.ts";

/** The S2 flags of a post whose form has no action: none failed. */
export const noFailedActions: Readonly<ActionFlags> = Object.freeze({
  email_address_post_expected_but_failed: false,
  cloud_database_post_expected_but_failed: false,
});

/** The S2 flags that say which of the form's own actions failed at their first attempt. */
export interface ActionFlags {
  email_address_post_expected_but_failed: boolean;
  cloud_database_post_expected_but_failed: boolean;
}

/** The form's actions after one submission, planned before the submission is written. */
export interface PlannedActions {
  /** Each action's delivery record and held outbox entry, for the submission's batch. */
  ops: BatchOp[];
  /**
   * Makes each action's first attempt, once `ops` are written. @returns S2's flags. Absent
   * when the form has no action: most S2s then await nothing more (hot path).
   */
  attempt?(): Promise<ActionFlags>;
}

/** One planned action: what is queued, and how its first attempt is made. */
interface PlannedAction {
  flag: keyof ActionFlags;
  delivery: DeliveryRecord;
  entry: OutboxEntry;
  /** Starts the first attempt; resolves with how it really ended, however long that takes. */
  start(signal: AbortSignal): Promise<AttemptOutcome>;
}

/**
 * How long past the first attempt's timeout S2's hold on a queued action lasts: longer than
 * the mailer's own timeouts, so that an e-mail S2 stopped waiting for is settled by its real
 * answer before the worker could try it again.
 */
const holdMarginMs = 60_000;

/**
 * After a submission: the form's confirmation e-mail and destination post (docs/design.md §11),
 * each when the form calls for it and the submission is not a draft.
 *
 * Each is queued by `ops`, written in the submission's own batch, so an acknowledged
 * submission never loses its actions. Its outbox entry is written held by this S2 (due only
 * once the hold ends), so the worker cannot race the first attempt into a second send; a
 * crash before `attempt` settles it leaves it to the worker once the hold ends.
 */
export function planPostSubmissionActions(
  ctx: Context,
  form: FormRecord,
  submission: SubmissionRecord,
): PlannedActions {
  const planned: PlannedAction[] = [];
  const refused: RefusedAction[] = [];
  const email = submission.is_draft_submission ? null : confirmationEmailOf(form, submission);
  if (email && "refused" in email) {
    refused.push(refusedAction(ctx, submission, "email", JSON.stringify(email), email.refused));
  } else if (email) {
    const action = plan(ctx, submission, "email", JSON.stringify(email));
    // The delivery id is the e-mail's Message-ID on every attempt (see attemptMail).
    const message = { ...email, id: action.delivery.id };
    planned.push({ ...action, start: () => attemptMail(ctx.mailer, message) });
  }
  const destination = submission.is_draft_submission ? null : destinationOf(form);
  if (destination) {
    const payload = destinationPayload(form, submission);
    const action = plan(ctx, submission, "destination", payload);
    const { attemptMs } = ctx.actions;
    const start = (signal: AbortSignal) =>
      attemptDestination(ctx, action.delivery.id, destination, payload, attemptMs, signal);
    planned.push({ ...action, start });
  }
  if (planned.length === 0 && refused.length === 0) return { ops: [] };
  return {
    ops: [
      ...refused.map(({ op }) => op),
      ...planned.flatMap(({ delivery, entry }) => newDeliveryOps(delivery, entry)),
    ],
    attempt: () => attemptAll(ctx, planned, refused),
  };
}

/** An action refused before any attempt: its flag and the op that logs it. */
interface RefusedAction {
  flag: keyof ActionFlags;
  op: BatchOp;
}

/**
 * An action that may not be attempted (an e-mail past its bounds: confirmation-email.ts),
 * logged as a failed delivery with one `refused` attempt that says why, and never queued.
 */
function refusedAction(
  ctx: Context,
  submission: SubmissionRecord,
  kind: "email" | "destination",
  payload: string,
  reason: string,
): RefusedAction {
  const logId = actionLogId(kind, submission.form_id);
  const delivery = pendingDelivery(ctx, submission, logId, payload, kind);
  delivery.status = "failed";
  delivery.attempts.push(attemptRecord(1, { kind: "refused", message: reason }, ctx.now()));
  const { webhookDeliveries } = collections;
  const op: BatchOp = {
    op: "create",
    collection: webhookDeliveries,
    partition: logId,
    record: delivery,
  };
  return { flag: flagOf[kind], op };
}

/** The delivery record and held outbox entry of one action. */
function plan(
  ctx: Context,
  submission: SubmissionRecord,
  kind: "email" | "destination",
  payload: string,
) {
  const logId = actionLogId(kind, submission.form_id);
  const delivery = pendingDelivery(ctx, submission, logId, payload, kind);
  const holdEnd = ctx.now().getTime() + ctx.actions.attemptMs + holdMarginMs;
  // Held by this S2, its first attempt counted, due only once the hold ends.
  const entry: OutboxEntry = {
    ...outboxEntryOf(ctx, delivery),
    due_at: new Date(holdEnd).toISOString(),
    lease_owner: `s2:${delivery.id}`,
    attempts_made: 1,
  };
  return { flag: flagOf[kind], delivery, entry };
}

const flagOf = {
  email: "email_address_post_expected_but_failed",
  destination: "cloud_database_post_expected_but_failed",
} as const;

/**
 * The first attempts, all at once, S2 waiting for each at most `ctx.actions.attemptMs`; an
 * action `refused` before any attempt counts as failed. A destination post is aborted then.
 * An e-mail is not: the SMTP server may still accept it, so it stays held until the mailer
 * answers (bounded by its own timeouts) and is settled by that answer in the background;
 * only a failure is retried. Its flag is set all the same: S2 could not say it was sent.
 */
async function attemptAll(
  ctx: Context,
  planned: PlannedAction[],
  refused: RefusedAction[],
): Promise<ActionFlags> {
  const flags: ActionFlags = { ...noFailedActions };
  for (const { flag } of refused) flags[flag] = true;
  const signal = AbortSignal.timeout(ctx.actions.attemptMs);
  await Promise.all(
    planned.map(async (action) => {
      const sending = action.start(signal);
      const first = await withinSignal(sending, signal);
      flags[action.flag] = !isSuccess(first);
      if (first.kind === "timeout") {
        ctx.keepRunning(sending.then((outcome) => settle(ctx, action, outcome)));
        return;
      }
      try {
        await settle(ctx, action, first);
      } catch {
        // The hold ends on its own and the worker makes the next attempt: nothing is lost.
      }
    }),
  );
  return flags;
}

/**
 * Records how the first attempt ended and ends S2's hold: a delivered or refused action
 * leaves the outbox, a failed one is due for the worker's retries.
 */
async function settle(ctx: Context, action: PlannedAction, outcome: AttemptOutcome) {
  const { delivery, entry } = action;
  const delivered = isSuccess(outcome);
  const retry = !delivered && outcome.kind !== "refused";
  await updateDelivery(ctx, delivery.webhook_id, delivery.id, (record) => {
    record.attempts.push(attemptRecord(1, outcome, ctx.now()));
    if (!retry) record.status = delivered ? "delivered" : "failed";
  });
  // The second attempt waits as long as a webhook's would.
  const dueAt = ctx.now().getTime() + ctx.actions.mailRetry.retryBaseMs;
  await releaseHold(ctx, entry, retry ? new Date(dueAt).toISOString() : null);
  if (retry) ctx.nudgeWebhooks();
}

/**
 * Ends S2's hold on an outbox entry: due again at `dueAt`, or out of the outbox when
 * `null`. An entry no longer held by this S2 (the hold ran out and the worker took it) is
 * left to the worker.
 */
async function releaseHold(ctx: Context, entry: OutboxEntry, dueAt: string | null) {
  const { webhookOutbox } = collections;
  const partition = outboxPartitionOf(entry.id);
  const stored = await ctx.store.get<OutboxEntry>(webhookOutbox, partition, entry.id);
  if (!stored || stored.record.lease_owner !== entry.lease_owner) return;
  const ifMatch = { ifMatch: stored.etag };
  try {
    if (dueAt === null) await ctx.store.delete(webhookOutbox, partition, entry.id, ifMatch);
    else {
      const due = { ...stored.record, lease_owner: null, due_at: dueAt };
      await ctx.store.replace(webhookOutbox, partition, due, ifMatch);
    }
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error;
  }
}
