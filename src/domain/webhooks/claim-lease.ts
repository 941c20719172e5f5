import type { Context } from "../context.ts";
import { type Claim, rewriteClaim } from "./outbox-claims.ts";
import type { OutboxEntry } from "./webhook-outbox.ts";

/** What keeping a claim's lease needs from the worker that took it. */
export interface LeaseTerms {
  ctx: Context;
  /** When a lease renewed now ends. */
  leaseEnd(): string;
  /** How often the lease is renewed: a fraction of it, so that one late renewal is harmless. */
  renewEveryMs: number;
  /** Receives a renewal that failed for another reason than losing the claim. */
  onError(error: unknown): void;
}

/**
 * A claim this instance holds, its lease renewed every `renewEveryMs` for as long as the
 * instance holds it: while an attempt is in flight and while it waits for the next one. So
 * the lease only runs out when the instance dies or stalls for longer than a lease, and a
 * dead instance's claims come due again within one lease.
 *
 * Every write of the entry is conditional on the etag the last one left, so they are made
 * one at a time here: a renewal overlapping a settlement would make one of them fail.
 */
export interface HeldClaim {
  /** The claim as last written. */
  claim(): Claim;
  /**
   * Renews the lease now, with `change` (an attempt count) written too, once any write in
   * progress is done. @returns `false` when the claim is lost (then or before): the entry
   * was written by someone else (another instance took it) or is gone.
   */
  renew(change?: Partial<OutboxEntry>): Promise<boolean>;
  /**
   * Stops renewing and waits for a renewal in progress. @returns the claim as last written,
   * for the holder's last writes, or `null` when it was lost: the entry is another's now,
   * and nothing of this holder's may be written as its outcome.
   */
  release(): Promise<Claim | null>;
}

/** Holds `first`, just taken, renewing its lease until it is released. */
export function holdClaim(terms: LeaseTerms, first: Claim): HeldClaim {
  let claim = first;
  let lost = false;
  let released = false;
  // The write in progress, if any; the next one starts when it is done.
  let writing: Promise<unknown> = Promise.resolve();
  const renew = (change: Partial<OutboxEntry> = {}): Promise<boolean> => {
    const write = writing.then(async () => {
      if (lost || released) return false;
      const due_at = terms.leaseEnd();
      const record = { ...claim.record, ...change, due_at };
      const renewed = await rewriteClaim(terms.ctx, { ...claim, record });
      if (renewed) claim = renewed;
      else lost = true;
      return !lost;
    });
    writing = write.catch(() => {});
    return write;
  };
  let renewing = false;
  const timer = setInterval(() => {
    // A renewal still waiting on the store is not doubled by the next tick.
    if (renewing) return;
    renewing = true;
    renew()
      .catch(terms.onError)
      .finally(() => {
        renewing = false;
      });
  }, terms.renewEveryMs);
  timer.unref();
  return {
    claim: () => claim,
    renew,
    async release() {
      clearInterval(timer);
      await writing;
      released = true;
      return lost ? null : claim;
    },
  };
}
