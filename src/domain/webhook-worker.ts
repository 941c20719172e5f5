import { type Context, collections } from "../context.ts";
import { newId } from "../ids.ts";
import { StoreConflictError, type Stored } from "../ports/store.ts";
import type { AttemptOutcome, DeliveryResult, WebhookSender } from "../ports/webhook-sender.ts";
import { sendFor } from "./outbox-senders.ts";
import { updateDelivery } from "./webhook-deliveries.ts";
import {
  type AttemptRecord,
  type DeliveryRecord,
  type OutboxEntry,
  outboxPartition,
} from "./webhook-outbox.ts";

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

type Claim = Stored<OutboxEntry>;

/**
 * Delivers what the outbox holds. Several instances may share one Store: an instance takes
 * a due entry by a conditional write that makes it its own until the lease ends (the entry
 * is then not due again before that), renews the lease before each attempt, and stops as
 * soon as a renewal fails, so no attempt is made twice. A crashed instance's entries come
 * due again when their leases end, and another instance carries on from the attempt count.
 */
export function startWebhookWorker(ctx: Context, options: WebhookWorkerOptions): WebhookWorker {
  const instance = newId();
  const inFlight = new Map<string, Promise<void>>();
  const abort = new AbortController();
  // The read in progress, if any: a stop waits for it, since it may still take claims.
  let reading: Promise<void> | undefined;
  let again = false;
  const leaseEnd = () => new Date(ctx.now().getTime() + options.leaseMs).toISOString();

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
        const free = options.maxConcurrent - inFlight.size;
        if (free <= 0 || abort.signal.aborted) break;
        const { items } = await ctx.store.query<OutboxEntry>(
          collections.webhookOutbox,
          outboxPartition,
          {
            where: [{ field: "due_at", op: "lte", value: ctx.now().toISOString() }],
            orderBy: { field: "due_at" },
            limit: free,
          },
        );
        for (const entry of items) {
          if (abort.signal.aborted) return;
          if (inFlight.has(entry.id)) continue;
          const claim = await take(entry.id);
          // A stop that came while the claim was being taken gets it back at once.
          if (claim && abort.signal.aborted) await handBack(claim);
          else if (claim) start(claim);
        }
      } while (again);
    } catch (error) {
      options.onError(error);
    }
  }

  /** Takes a due entry for this instance. @returns the claim, or `null` when another won. */
  async function take(id: string): Promise<Claim | null> {
    const stored = await ctx.store.get<OutboxEntry>(collections.webhookOutbox, outboxPartition, id);
    if (!stored || stored.record.due_at > ctx.now().toISOString()) return null;
    const record = { ...stored.record, lease_owner: instance, due_at: leaseEnd() };
    return conditionalWrite({ record, etag: stored.etag });
  }

  async function conditionalWrite({ record, etag }: Claim): Promise<Claim | null> {
    try {
      return await ctx.store.replace(collections.webhookOutbox, outboxPartition, record, {
        ifMatch: etag,
      });
    } catch (error) {
      if (error instanceof StoreConflictError) return null;
      throw error;
    }
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
    const delivery = await ctx.store.get<DeliveryRecord>(
      collections.webhookDeliveries,
      entry.webhook_id,
      entry.id,
    );
    const send = delivery && (await sendFor(ctx, options.sender, entry, delivery.record));
    if (!send) return finish(claim, { status: "failed", attempts: entry.attempts_made });
    const note = (attempt: number, outcome: AttemptOutcome) =>
      updateDelivery(ctx, entry.webhook_id, entry.id, (record) => {
        record.attempts.push(attemptRecord(attempt, outcome, ctx.now()));
      });
    if ("refused" in send) {
      await note(entry.attempts_made + 1, { kind: "refused", message: send.refused });
      return finish(claim, { status: "failed", attempts: entry.attempts_made + 1 });
    }
    const result = await send({
      attemptsMade: entry.attempts_made,
      signal: abort.signal,
      beforeAttempt: async (attempt) => {
        const renewed = await conditionalWrite({
          record: { ...claim.record, attempts_made: attempt, due_at: leaseEnd() },
          etag: claim.etag,
        });
        if (renewed) claim = renewed;
        return renewed !== null;
      },
      afterAttempt: async (attempt, outcome) => {
        await note(attempt, outcome);
      },
    });
    await finish(claim, result);
  }

  /** Records how a delivery ended and takes it out of the outbox, or hands it back. */
  async function finish(claim: Claim, result: DeliveryResult) {
    if (result.status === "stopped") {
      if (abort.signal.aborted) await handBack(claim);
      return;
    }
    await updateDelivery(ctx, claim.record.webhook_id, claim.record.id, (record) => {
      record.status = result.status === "delivered" ? "delivered" : "failed";
    });
    try {
      await ctx.store.delete(collections.webhookOutbox, outboxPartition, claim.record.id, {
        ifMatch: claim.etag,
      });
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
    }
  }

  /** Closing: makes a claimed entry due at once for whoever runs next, if it is still ours. */
  async function handBack(claim: Claim) {
    await conditionalWrite({
      record: { ...claim.record, lease_owner: null, due_at: ctx.now().toISOString() },
      etag: claim.etag,
    });
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
