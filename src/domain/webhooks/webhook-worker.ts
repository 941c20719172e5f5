import { setMaxListeners } from "node:events";
import { newId } from "../../kernel/ids.ts";
import type { WebhookSender } from "../../ports/webhook-sender.ts";
import type { Context } from "../context.ts";
import { type Candidate, type Claim, dueCandidates, takeEntry } from "./outbox-claims.ts";
import { type DeliveryRun, deliverClaim, handBack } from "./outbox-delivery.ts";

/** Settings of the background delivery worker. */
export interface WebhookWorkerOptions {
  sender: WebhookSender;
  /** How often the outbox is read when nothing nudges the worker. */
  pollMs: number;
  /**
   * How long a claim holds unless renewed. The worker renews it every third of it for as
   * long as it holds the claim, so it runs out only when the instance dies (or stalls).
   */
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
 * is then not due again before that), renews the lease every third of it while it holds
 * the entry, attempts in flight included, and stops as soon as a renewal fails. A crashed
 * instance's entries come due again within one lease, and another instance carries on from
 * the attempt count. So a delivery is made at least once: an attempt is made again only
 * when the instance that made it died, or stalled past its lease, before settling it.
 *
 * The outbox is spread over several partitions (outbox-partitions.ts); a read takes the due
 * entries of all of them, fairly, and what it could not start yet waits in `candidates`, so
 * that a finished delivery starts the next one without reading the outbox again.
 */
export function startWebhookWorker(ctx: Context, options: WebhookWorkerOptions): WebhookWorker {
  const worker = new OutboxReader(ctx, options);
  const timer = setInterval(() => void worker.read(), options.pollMs);
  timer.unref();
  void worker.read();
  return {
    nudge: () => void worker.read(),
    async stop() {
      clearInterval(timer);
      await worker.stop();
    },
  };
}

/** One instance's reads of the outbox, and the deliveries they start. */
class OutboxReader {
  private readonly instance = newId();
  private readonly inFlight = new Map<string, Promise<void>>();
  private readonly abort = new AbortController();
  private readonly run: DeliveryRun;
  /** The read in progress, if any: a stop waits for it, since it may still take claims. */
  private reading: Promise<void> | undefined;
  private again = false;
  private candidates: Candidate[] = [];
  private rotation = 0;

  constructor(
    private readonly ctx: Context,
    private readonly options: WebhookWorkerOptions,
  ) {
    // Every delivery in flight listens to it, each attempt too: more than the default 10.
    setMaxListeners(0, this.abort.signal);
    const { leaseMs, onError } = options;
    this.run = {
      ctx,
      sender: options.sender,
      signal: this.abort.signal,
      leaseEnd: () => new Date(ctx.now().getTime() + leaseMs).toISOString(),
      renewEveryMs: Math.max(1, Math.floor(leaseMs / 3)),
      onError,
    };
  }

  /** Reads the outbox, or has the read in progress read once more when it is done. */
  read(): Promise<void> {
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.readWhileDue().finally(() => {
      this.reading = undefined;
    });
    return this.reading;
  }

  /**
   * Stops claiming, waits for a read in progress (it may still take claims, handing them
   * straight back), aborts the deliveries in flight and waits for them to hand theirs back.
   */
  async stop(): Promise<void> {
    this.abort.abort();
    await this.reading;
    await Promise.allSettled(this.inFlight.values());
  }

  private free = () => this.options.maxConcurrent - this.inFlight.size;
  private stopped = () => this.abort.signal.aborted;

  private async readWhileDue() {
    try {
      do {
        this.again = false;
        if (this.candidates.length === 0 && this.free() > 0 && !this.stopped()) {
          const { ctx, options } = this;
          this.candidates = await dueCandidates(ctx, options.maxConcurrent, this.rotation++);
        }
        while (this.candidates.length > 0 && this.free() > 0 && !this.stopped()) {
          const next = this.candidates
            .splice(0, this.free())
            .filter((c) => !this.inFlight.has(c.entry.record.id));
          const claimed = await Promise.all(next.map((c) => this.claimAndStart(c)));
          // Every candidate tried, one taken and room left: what came due since is read at
          // once (not when none was taken: that read would find the same ones again).
          const room = this.candidates.length === 0 && this.free() > 0;
          if (claimed.includes(true) && room) this.again = true;
        }
      } while (this.again && !this.stopped());
    } catch (error) {
      this.options.onError(error);
    }
  }

  /** @returns whether the candidate was taken. */
  private async claimAndStart(candidate: Candidate): Promise<boolean> {
    const claim = await takeEntry(this.ctx, candidate, this.instance, this.run.leaseEnd());
    // A stop that came while the claim was being taken gets it back at once.
    if (claim && this.stopped()) await handBack(this.ctx, claim, claim.record.attempts_made - 1);
    else if (claim) this.start(claim);
    return claim !== null;
  }

  private start(claim: Claim) {
    const id = claim.record.id;
    const delivery = deliverClaim(this.run, claim)
      .catch(this.options.onError)
      .finally(() => {
        this.inFlight.delete(id);
        if (!this.stopped()) void this.read();
      });
    this.inFlight.set(id, delivery);
  }
}
