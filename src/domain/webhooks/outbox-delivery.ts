import { isSuccess } from "../../ports/webhook-retries.ts";
import type { AttemptOutcome, DeliveryResult, WebhookSender } from "../../ports/webhook-sender.ts";
import { type Context, collections } from "../context.ts";
import { type Claim, dropEntry, rewriteClaim, settleDelivered } from "./outbox-claims.ts";
import { sendFor } from "./outbox-senders.ts";
import { updateDelivery } from "./webhook-deliveries.ts";
import type { AttemptRecord, DeliveryRecord } from "./webhook-outbox.ts";

/** What delivering one claimed outbox entry needs from the worker that claimed it. */
export interface DeliveryRun {
  ctx: Context;
  sender: WebhookSender;
  /** Aborted when the service closes: the delivery stops and hands its claim back. */
  signal: AbortSignal;
  /** When a lease taken or renewed now ends. */
  leaseEnd(): string;
}

/**
 * Delivers one claimed entry: makes its attempts from the count the claim left, renewing the
 * lease before each later one and stopping as soon as a renewal fails (another instance has
 * it), records every attempt on the delivery, and ends by taking the entry out of the outbox,
 * or, stopped by a closing service, by handing it back.
 */
export async function deliverClaim(run: DeliveryRun, first: Claim): Promise<void> {
  const { ctx } = run;
  const entry = first.record;
  // The claim counted the first attempt it makes (outbox-claims.ts).
  const counted = entry.attempts_made;
  const made = counted - 1;
  const delivery = await ctx.store.get<DeliveryRecord>(
    collections.webhookDeliveries,
    entry.webhook_id,
    entry.id,
  );
  const send = delivery && (await sendFor(ctx, run.sender, entry, delivery.record));
  if (!delivery || !send) return finish(run, first, { status: "failed", attempts: made }, false);
  const log = attemptLog(ctx, first, delivery);
  if ("refused" in send) {
    await log.note(counted, { kind: "refused", message: send.refused });
    return finish(run, first, { status: "failed", attempts: counted }, false);
  }
  const lease = leaseRenewal(run, first, counted);
  const result = await send({
    attemptsMade: made,
    signal: run.signal,
    beforeAttempt: lease.beforeAttempt,
    afterAttempt: (attempt, outcome) => log.note(attempt, outcome, lease.claim()),
  });
  await finish(run, lease.claim(), result, log.settled(), lease.attempted());
}

/**
 * The delivery record's log of attempts. A failed attempt is appended; a 2xx ends the
 * delivery: its attempt, its status and the entry's removal in one write.
 */
function attemptLog(ctx: Context, claim: Claim, first: { record: DeliveryRecord; etag: string }) {
  const { webhook_id: webhookId, id } = claim.record;
  let delivery: { record: DeliveryRecord; etag: string } | null = first;
  let settled = false;
  return {
    settled: () => settled,
    async note(attempt: number, outcome: AttemptOutcome, current: Claim = claim) {
      const change = (record: DeliveryRecord) => {
        record.attempts.push(attemptRecord(attempt, outcome, ctx.now()));
      };
      if (!isSuccess(outcome)) {
        delivery = await updateDelivery(ctx, webhookId, id, change, delivery);
        return;
      }
      await settleDelivered(ctx, current, delivery, (record) => {
        change(record);
        record.status = "delivered";
      });
      settled = true;
    },
  };
}

/** Renews the claim's lease before every attempt after the first, which the claim leased. */
function leaseRenewal(run: DeliveryRun, first: Claim, counted: number) {
  let claim = first;
  let attempted = counted - 1;
  return {
    claim: () => claim,
    attempted: () => attempted,
    async beforeAttempt(attempt: number): Promise<boolean> {
      if (attempt !== counted) {
        const renewed = await rewriteClaim(run.ctx, {
          ...claim,
          record: { ...claim.record, attempts_made: attempt, due_at: run.leaseEnd() },
        });
        if (!renewed) return false;
        claim = renewed;
      }
      attempted = attempt;
      return true;
    },
  };
}

/**
 * Records how a delivery ended and takes it out of the outbox (unless `settled`: done), or,
 * stopped by a closing service, hands it back with `attempted` attempts made.
 */
async function finish(
  run: DeliveryRun,
  claim: Claim,
  result: DeliveryResult,
  settled: boolean,
  attempted = 0,
) {
  if (settled) return;
  if (result.status === "stopped") {
    if (run.signal.aborted) await handBack(run.ctx, claim, attempted);
    return;
  }
  await updateDelivery(run.ctx, claim.record.webhook_id, claim.record.id, (record) => {
    record.status = result.status === "delivered" ? "delivered" : "failed";
  });
  await dropEntry(run.ctx, claim);
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
