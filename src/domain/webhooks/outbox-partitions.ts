/**
 * Where outbox entries live. One logical partition would cap deliveries at what one Cosmos
 * DB partition serves (10,000 RU/s), so entries are spread over a fixed set of partitions by
 * a hash of their delivery id: every entry has one home, known from its id alone, and the
 * worker reads the set without a cross-partition query.
 */

/** How many partitions new entries are spread over. Changing it strands entries: do not. */
export const outboxPartitionCount = 16;

/**
 * The one partition of the outbox before it was spread. Nothing writes new entries there;
 * the worker still reads it, so entries queued before an upgrade are delivered.
 */
export const legacyOutboxPartition = "due";

/** Every partition the worker reads: `due-0` … `due-15`, then the legacy `due`. */
export const outboxPartitions: readonly string[] = [
  ...Array.from({ length: outboxPartitionCount }, (_, n) => `due-${n}`),
  legacyOutboxPartition,
];

/** The partition of a new outbox entry for the delivery `deliveryId`. */
export function outboxPartitionOf(deliveryId: string): string {
  return `due-${fnv1a(deliveryId) % outboxPartitionCount}`;
}

/**
 * FNV-1a, 32 bits: a fast hash that spreads UUIDv7 ids evenly (their last 12 hex digits are
 * random), stable across processes and versions, unlike anything seeded.
 */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
