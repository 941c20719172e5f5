import { setMaxListeners } from "node:events";
import { newId } from "../../kernel/ids.ts";
import { isSuccess } from "../../ports/webhook-retries.ts";
import type { AttemptOutcome, DeliveryResult, WebhookSender } from "../../ports/webhook-sender.ts";
import { type Context, collections } from "../context.ts";
import {
  type Candidate,
  type Claim,
  dropEntry,
  dueCandidates,
  rewriteClaim,
  settleDelivered,
  takeEntry,
} from "./outbox-claims.ts";
import { sendFor } from "./outbox-senders.ts";
import { updateDelivery } from "./webhook-deliveries.ts";
import type { AttemptRecord, DeliveryRecord } from "./webhook-outbox.ts";

/** Settings of the background delivery worker. */
export interface WebhookWorkerOptions {
  sender: WebhookSender;
  /** How often the outbox is read when nothing nudges the worker. */
  pollMs: number;
  /** How long a claim holds; renewed before every attempt. Must outlast one attempt and the wait before it. */
  leaseMs: number;
  /** Deliveries in flight at once. */
  maxConcurrent: number;
  onError(error: unknown): void;
}

/** The running worker. */
export interface WebhookWorker {
  /** Reads the outbox now rather than at the next poll. */
  nudge(): void;
  /**
   * Stops claiming, waits for a read of the outbox in progress, aborts the deliveries in
   * flight and hands every claim back (due at once), so none waits out its lease.
   */
  stop(): Promise<void>;
}

/**
 * Delivers what the outbox holds. Several instances may share one Store: an instance takes
 * a due entry by a conditional write that makes it its own until the lease ends (the entry
 * is then not due again before that), renews the lease before each later attempt, and stops
 * as soon as a renewal fails, so no attempt is made twice. A crashed instance's entries come
 * due again when their leases end, and another instance carries on from the attempt count.
 *
 * The outbox is spread over several partitions (outbox-partitions.ts); a read takes the due
 * entries of all of them, fairly, and what it could not start yet waits in `candidates`, so
 * that a finished delivery starts the next one without reading the outbox again.
 */
export function startWebhookWorker(ctx: Context, options: WebhookWorkerOptions): WebhookWorker {
  const instance = newId();
  const inFlight = new Map<string, Promise<void>>();
  const abort = new AbortController();
  // Every delivery in flight listens to it, each attempt too: more than the default 10.
  setMaxListeners(0, abort.signal);
  // The read in progress, if any: a stop waits for it, since it may still take claims.
  let reading: Promise<void> | undefined;
  let again = false;
  let candidates: Candidate[] = [];
  let rotation = 0;
  const leaseEnd = () => new Date(ctx.now().getTime() + options.leaseMs).toISOString();
  const free = () => options.maxConcurrent - inFlight.size;

  function readOutbox(): Promise<void> {
    if (reading) {
      again = true;
      return reading;
    }
    reading = readWhileDue().finally(() => {
      reading = undefined;
    });
    return reading;
  }

  async function readWhileDue() {
    try {
      do {
        again = false;
        if (candidates.length === 0 && free() > 0 && !abort.signal.aborted) {
          candidates = await dueCandidates(ctx, options.maxConcurrent, rotation++);
        }
        while (candidates.length > 0 && free() > 0 && !abort.signal.aborted) {
          const next = candidates.splice(0, free()).filter((c) => !inFlight.has(c.entry.record.id));
          const claimed = await Promise.all(next.map(claimAndStart));
          // Every candidate tried, one taken and room left: what came due since is read at
          // once (not when none was taken: that read would find the same ones again).
          if (claimed.includes(true) && candidates.length === 0 && free() > 0) again = true;
        }
      } while (again && !abort.signal.aborted);
    } catch (error) {
      options.onError(error);
    }
  }

  /** @returns whether the candidate was taken. */
  async function claimAndStart(candidate: Candidate): Promise<boolean> {
    const claim = await takeEntry(ctx, candidate, instance, leaseEnd());
    // A stop that came while the claim was being taken gets it back at once.
    if (claim && abort.signal.aborted) await handBack(claim, claim.record.attempts_made - 1);
    else if (claim) start(claim);
    return claim !== null;
  }

  function start(claim: Claim) {
    const run = deliver(claim)
      .catch(options.onError)
      .finally(() => {
        inFlight.delete(claim.record.id);
        if (!abort.signal.aborted) void readOutbox();
      });
    inFlight.set(claim.record.id, run);
  }

  async function deliver(first: Claim) {
    let claim = first;
    const entry = claim.record;
    // The claim counted the first attempt it makes (outbox-claims.ts).
    const counted = entry.attempts_made;
    const made = counted - 1;
    let delivery = await ctx.store.get<DeliveryRecord>(
      collections.webhookDeliveries,
      entry.webhook_id,
      entry.id,
    );
    const send = delivery && (await sendFor(ctx, options.sender, entry, delivery.record));
    if (!send) return finish(claim, { status: "failed", attempts: made }, false);
    let settled = false;
    const note = async (attempt: number, outcome: AttemptOutcome) => {
      const change = (record: DeliveryRecord) => {
        record.attempts.push(attemptRecord(attempt, outcome, ctx.now()));
      };
      if (!isSuccess(outcome)) {
        delivery = await updateDelivery(ctx, entry.webhook_id, entry.id, change, delivery);
        return;
      }
      // A 2xx ends the delivery: its attempt, its status and the entry's removal at once.
      await settleDelivered(ctx, claim, delivery, (record) => {
        change(record);
        record.status = "delivered";
      });
      settled = true;
    };
    if ("refused" in send) {
      await note(counted, { kind: "refused", message: send.refused });
      return finish(claim, { status: "failed", attempts: counted }, false);
    }
    let attempted = made;
    const result = await send({
      attemptsMade: made,
      signal: abort.signal,
      beforeAttempt: async (attempt) => {
        // The claim itself counted and leased its first attempt.
        if (attempt === counted) {
          attempted = attempt;
          return true;
        }
        const renewed = await rewriteClaim(ctx, {
          ...claim,
          record: { ...claim.record, attempts_made: attempt, due_at: leaseEnd() },
        });
        if (!renewed) return false;
        claim = renewed;
        attempted = attempt;
        return true;
      },
      afterAttempt: note,
    });
    await finish(claim, result, settled, attempted);
  }

  /**
   * Records how a delivery ended and takes it out of the outbox (unless `settled`: done), or,
   * stopped by a closing service, hands it back with `attempted` attempts made.
   */
  async function finish(claim: Claim, result: DeliveryResult, settled: boolean, attempted = 0) {
    if (settled) return;
    if (result.status === "stopped") {
      if (abort.signal.aborted) await handBack(claim, attempted);
      return;
    }
    await updateDelivery(ctx, claim.record.webhook_id, claim.record.id, (record) => {
      record.status = result.status === "delivered" ? "delivered" : "failed";
    });
    await dropEntry(ctx, claim);
  }

  /** Closing: makes a claimed entry due at once for whoever runs next, if it is still ours. */
  async function handBack(claim: Claim, attemptsMade: number) {
    const now = ctx.now().toISOString();
    const record = { ...claim.record, lease_owner: null, due_at: now, attempts_made: attemptsMade };
    await rewriteClaim(ctx, { ...claim, record });
  }

  const timer = setInterval(() => void readOutbox(), options.pollMs);
  timer.unref();
  void readOutbox();
  return {
    nudge: () => void readOutbox(),
    async stop() {
      clearInterval(timer);
      abort.abort();
      // A read in progress may still take claims (handing them straight back); the
      // deliveries it started before the abort are in `inFlight` once it is done.
      await reading;
      await Promise.allSettled(inFlight.values());
    },
  };
}

/** An attempt as the delivery record keeps it. */
export function attemptRecord(attempt: number, outcome: AttemptOutcome, at: Date): AttemptRecord {
  const record: AttemptRecord = { attempt, at: at.toISOString(), outcome: outcome.kind };
  if (outcome.kind === "response") record.status_code = outcome.status;
  if (outcome.kind === "network_error" || outcome.kind === "refused")
    record.message = outcome.message;
  return record;
}
