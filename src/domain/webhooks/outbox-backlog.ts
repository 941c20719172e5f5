import type { Store } from "../../ports/store.ts";
import { collections } from "../records/collections.ts";
import { outboxPartitions } from "./outbox-partitions.ts";
import type { OutboxEntry } from "./webhook-outbox.ts";

/** The most entries of each outbox partition a backlog reading counts. */
export const backlogCapPerPartition = 100;

/** What the outbox holds, as the metrics show it (docs/design.md §10). */
export interface OutboxBacklog {
  /** Entries in flight, between attempts or due: each partition's counted up to the cap. */
  entries: number;
  /** Those due now, waiting for a worker. */
  due: number;
  /** Seconds since the oldest due entry came due; 0 when none is due. */
  oldestDueSeconds: number;
}

/**
 * Reads the outbox's backlog: per partition, its first {@link backlogCapPerPartition}
 * entries by `due_at`, the worker's query without its condition (one single-partition query
 * each, bounded, whatever the backlog). The first entry of a partition is its earliest
 * due; an entry is due when `due_at` has passed (a claimed one's lies in the future).
 */
export async function outboxBacklog(ctx: {
  store: Store;
  now: () => Date;
}): Promise<OutboxBacklog> {
  const now = ctx.now();
  const moment = now.toISOString();
  const pages = await Promise.all(
    outboxPartitions.map((partition) =>
      ctx.store.query<OutboxEntry>(collections.webhookOutbox, partition, {
        orderBy: { field: "due_at" },
        limit: backlogCapPerPartition,
      }),
    ),
  );
  let entries = 0;
  let due = 0;
  let oldest: string | undefined;
  for (const { items } of pages) {
    entries += items.length;
    for (const { record } of items) {
      if (record.due_at > moment) break;
      due++;
      if (oldest === undefined || record.due_at < oldest) oldest = record.due_at;
    }
  }
  const oldestDueSeconds = oldest ? (now.getTime() - Date.parse(oldest)) / 1000 : 0;
  return { entries, due, oldestDueSeconds };
}
