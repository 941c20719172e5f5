import type { Stored } from "../../ports/store.ts";
import { isSuccess } from "../../ports/webhook-retries.ts";
import type { AttemptOutcome, WebhookSender } from "../../ports/webhook-sender.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { type HeldClaim, holdClaim, type LeaseTerms } from "./claim-lease.ts";
import { forgetDelivery } from "./delivery-purge.ts";
import { type Claim, rewriteClaim, settleClaim } from "./outbox-claims.ts";
import { sendFor } from "./outbox-senders.ts";
import { updateDelivery } from "./webhook-deliveries.ts";
import type { AttemptRecord, DeliveryRecord } from "./webhook-outbox.ts";

/** What delivering one claimed outbox entry needs from the worker that claimed it. */
export interface DeliveryRun extends LeaseTerms {
  sender: WebhookSender;
  /** Aborted when the service closes: the delivery stops and hands its claim back. */
  signal: AbortSignal;
}

/**
 * Delivers one claimed entry: makes its attempts from the count the claim left, keeping the
 * claim's lease alive all along (claim-lease.ts) and counting each later attempt on the
 * entry before it is made, and stops as soon as the claim is lost (another instance has
 * it). Records every attempt on the delivery, and ends by taking the entry out of the
 * outbox, or, stopped by a closing service, by handing it back.
 */
export async function deliverClaim(run: DeliveryRun, first: Claim): Promise<void> {
  const lease = holdClaim(run, first);
  try {
    await deliverHeld(run, lease);
  } finally {
    await lease.release();
  }
}

async function deliverHeld(run: DeliveryRun, lease: HeldClaim): Promise<void> {
  const { ctx } = run;
  const entry = lease.claim().record;
  // The claim counted the first attempt it makes (outbox-claims.ts).
  const counted = entry.attempts_made;
  let attempted = counted - 1;
  const delivery = await ctx.store.get<DeliveryRecord>(
    collections.webhookDeliveries,
    entry.webhook_id,
    entry.id,
  );
  if (delivery && (await ofDeletedSubmission(ctx, delivery.record))) {
    // Its submission was deleted and a crash cut the purge short (delivery-purge.ts).
    if (await lease.release()) await forgetDelivery(ctx, delivery.record);
    return;
  }
  const log = attemptLog(run, lease, delivery);
  const send = delivery && (await sendFor(ctx, run.sender, entry, delivery.record));
  if (!send) return log.end("failed");
  if ("refused" in send) {
    await log.note(counted, { kind: "refused", message: send.refused });
    return log.end("failed");
  }
  const result = await send({
    attemptsMade: counted - 1,
    signal: run.signal,
    async beforeAttempt(attempt) {
      // A later attempt is counted on the entry before it is made, so a crash counts it too.
      if (attempt !== counted && !(await lease.renew({ attempts_made: attempt }))) return false;
      attempted = attempt;
      return true;
    },
    afterAttempt: (attempt, outcome) => log.note(attempt, outcome),
  });
  if (result.status !== "stopped") return log.end(result.status);
  const claim = await lease.release();
  if (run.signal.aborted && claim) await handBack(ctx, claim, attempted);
}

/**
 * Whether `delivery` tells of a submission that is gone: one deleted between its batch and
 * its purge. A deletion's own delivery holds the id alone, and is sent.
 */
async function ofDeletedSubmission(ctx: Context, delivery: DeliveryRecord): Promise<boolean> {
  if (delivery.event_type === "form_submission.deleted") return false;
  const { form_id, submission_id } = delivery;
  return !(await ctx.store.get(collections.submissions, form_id, submission_id));
}

/**
 * The delivery record's log of attempts. Every attempt is appended, since it was made. How
 * the delivery ended (a 2xx's attempt, or the last status, with the entry's removal) is
 * written only while the claim holds: a claim lost to another instance leaves the delivery
 * to it, so that this one never writes its outcome over the other's attempts.
 */
function attemptLog(run: DeliveryRun, lease: HeldClaim, first: Stored<DeliveryRecord> | null) {
  const { ctx } = run;
  const { webhook_id: logId, id } = lease.claim().record;
  let delivery = first;
  let ended = false;
  /** Ends the delivery with `change`, unless it has ended. @returns whether the claim held. */
  const end = async (change: (record: DeliveryRecord) => void) => {
    if (ended) return true;
    ended = true;
    const claim = await lease.release();
    return claim !== null && settleClaim(ctx, claim, delivery, change, run.leaseEnd());
  };
  return {
    async note(attempt: number, outcome: AttemptOutcome) {
      const append = (record: DeliveryRecord) => {
        record.attempts.push(attemptRecord(attempt, outcome, ctx.now()));
      };
      if (isSuccess(outcome)) {
        const held = await end((record) => {
          append(record);
          record.status = "delivered";
        });
        if (held) return;
      }
      delivery = await updateDelivery(ctx, logId, id, append, delivery);
    },
    async end(status: "delivered" | "failed") {
      await end((record) => {
        record.status = status;
      });
    },
  };
}

/** Closing: makes a claimed entry due at once for whoever runs next, if it is still ours. */
export async function handBack(ctx: Context, claim: Claim, attemptsMade: number): Promise<void> {
  const now = ctx.now().toISOString();
  const record = { ...claim.record, lease_owner: null, due_at: now, attempts_made: attemptsMade };
  await rewriteClaim(ctx, { ...claim, record });
}

/** An attempt as the delivery record keeps it. */
export function attemptRecord(attempt: number, outcome: AttemptOutcome, at: Date): AttemptRecord {
  const record: AttemptRecord = { attempt, at: at.toISOString(), outcome: outcome.kind };
  if (outcome.kind === "response") record.status_code = outcome.status;
  if (outcome.kind === "network_error" || outcome.kind === "refused")
    record.message = outcome.message;
  return record;
}
