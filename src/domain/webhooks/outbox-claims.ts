import { StoreConflictError, type Stored } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { outboxPartitions } from "./outbox-partitions.ts";
import { changedDelivery, updateDelivery } from "./webhook-deliveries.ts";
import type { DeliveryRecord, OutboxEntry } from "./webhook-outbox.ts";

/** An outbox entry an instance holds, where it lives, and its etag as last written. */
export interface Claim extends Stored<OutboxEntry> {
  partition: string;
}

/**
 * A due entry seen by a read of the outbox, not yet claimed: the entry and its etag as the
 * query answered them, so that claiming it is one conditional write and no read.
 */
export interface Candidate {
  partition: string;
  entry: Stored<OutboxEntry>;
}

/**
 * The due entries of every outbox partition, at most `limit` of each, read in parallel (one
 * single-partition query each) and interleaved: the first of each partition, then the
 * second of each, and so on, starting at partition `start`. So a partition with a backlog
 * never starves the others, and no partition is always served first.
 */
export async function dueCandidates(
  ctx: Context,
  limit: number,
  start: number,
): Promise<Candidate[]> {
  const now = ctx.now().toISOString();
  const count = outboxPartitions.length;
  const order = outboxPartitions.map((_, n) => outboxPartitions[(start + n) % count] as string);
  const pages = await Promise.all(
    order.map((partition) =>
      ctx.store.query<OutboxEntry>(collections.webhookOutbox, partition, {
        where: [{ field: "due_at", op: "lte", value: now }],
        orderBy: { field: "due_at" },
        limit,
      }),
    ),
  );
  const candidates: Candidate[] = [];
  for (let rank = 0; rank < limit; rank++) {
    pages.forEach(({ items }, n) => {
      const entry = items[rank];
      if (entry) candidates.push({ partition: order[n] as string, entry });
    });
  }
  return candidates;
}

/**
 * Takes a due entry for `owner` until `leaseEnd`, counting the attempt the holder is about
 * to make (so that a crash during it counts it, and no renewal is needed before it). The
 * write is conditional on the etag the outbox query answered: no read before it.
 * @returns the claim, or `null` when the entry is gone, not due, or was written since it was
 *   read (another instance took it or handed it back: the next read of the outbox sees it).
 */
export async function takeEntry(
  ctx: Context,
  { partition, entry: stored }: Candidate,
  owner: string,
  leaseEnd: string,
): Promise<Claim | null> {
  if (stored.record.due_at > ctx.now().toISOString()) return null;
  const record = {
    ...stored.record,
    lease_owner: owner,
    due_at: leaseEnd,
    attempts_made: stored.record.attempts_made + 1,
  };
  return rewriteClaim(ctx, { partition, record, etag: stored.etag });
}

/**
 * Writes `claim.record` over the entry, on the condition that it still carries
 * `claim.etag` (it is still this holder's). @returns the new claim, or `null` when not.
 */
export async function rewriteClaim(ctx: Context, claim: Claim): Promise<Claim | null> {
  const { partition, record, etag } = claim;
  try {
    const written = await ctx.store.replace(collections.webhookOutbox, partition, record, {
      ifMatch: etag,
    });
    return written && { ...written, partition };
  } catch (error) {
    if (error instanceof StoreConflictError) return null;
    throw error;
  }
}

/** Takes a finished delivery out of the outbox, unless someone else holds its entry now. */
export async function dropEntry(ctx: Context, claim: Claim) {
  try {
    await ctx.store.delete(collections.webhookOutbox, claim.partition, claim.record.id, {
      ifMatch: claim.etag,
    });
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error;
  }
}

/**
 * Ends a delivery held by `claim`: writes its record (`change` applied to `known`, the
 * record as last read) and takes its entry out of the outbox in one `Store.batch`, one
 * journal line on lowdb. When either changed meanwhile, the entry is first renewed until
 * `leaseEnd` on the claim's etag: only if that holds (the entry is still this claim's) is
 * the record written again from a fresh read and the entry removed. A claim another
 * instance took over is left to it, and its outcome is that instance's to write.
 * @returns whether the claim still held; when not, nothing was written.
 */
export async function settleClaim(
  ctx: Context,
  claim: Claim,
  known: Stored<DeliveryRecord> | null,
  change: (delivery: DeliveryRecord) => void,
  leaseEnd: string,
): Promise<boolean> {
  const { webhook_id: logId, id } = claim.record;
  if (known) {
    const record = changedDelivery(ctx, known.record, change);
    try {
      await ctx.store.batch([
        {
          op: "replace",
          collection: collections.webhookDeliveries,
          partition: logId,
          record,
          ifMatch: known.etag,
          previous: known.record,
        },
        {
          op: "delete",
          collection: collections.webhookOutbox,
          partition: claim.partition,
          id,
          ifMatch: claim.etag,
          // Cosmos DB writes this batch in two phases and would read the entry otherwise.
          previous: claim.record,
        },
      ]);
      return true;
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
    }
  }
  const held = await rewriteClaim(ctx, { ...claim, record: { ...claim.record, due_at: leaseEnd } });
  if (!held) return false;
  await updateDelivery(ctx, logId, id, change);
  await dropEntry(ctx, held);
  return true;
}
