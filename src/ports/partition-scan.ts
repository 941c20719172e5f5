import { Buffer } from "node:buffer";
import {
  type Page,
  type Query,
  type ScannedRecord,
  type ScanOptions,
  type ScanPage,
  type Store,
  StoreContinuationError,
  type StoreRecord,
} from "./store.ts";

/** One partition of one collection, as a store lists what it holds. */
export interface PartitionPlace {
  collection: string;
  partition: string;
}

/** The default of {@link ScanOptions.limit}. */
export const defaultScanLimit = 1000;

/**
 * `Store.scan` for a store that can list its partitions and page through one with its own
 * `query` (memory, lowdb, a file per partition): the partitions in (collection, partition)
 * order, each read by id. The continuation names the partition reached and the query's own
 * continuation in it, so a partition created or deleted between pages shifts nothing: the
 * next page starts at the first partition at or after the one named.
 * @param places every partition that may hold records, in any order; listed again per page
 * @param query the store's own `query`, ordered by id
 */
export async function scanPartitions(
  places: readonly PartitionPlace[],
  query: (collection: string, partition: string, query: Query) => Promise<Page<StoreRecord>>,
  options: ScanOptions = {},
): Promise<ScanPage> {
  const limit = options.limit ?? defaultScanLimit;
  if (!Number.isInteger(limit) || limit < 1) {
    throw new RangeError(`scan: limit must be a positive integer, not ${limit}`);
  }
  const sorted = [...places].sort(comparePlaces);
  const from = options.continuation ? decodeScanCursor(options.continuation) : undefined;
  let index = from ? sorted.findIndex((place) => comparePlaces(place, from) >= 0) : 0;
  if (index < 0) index = sorted.length;
  // The query's continuation belongs to the partition it was issued in, and to no other.
  const first = sorted[index];
  let inner = from && first && comparePlaces(first, from) === 0 ? from.q : null;
  const items: ScanPage["items"] = [];
  for (; index < sorted.length; index++, inner = null) {
    const place = sorted[index] as PartitionPlace;
    const page = await query(place.collection, place.partition, {
      limit: limit - items.length,
      continuation: inner,
    });
    for (const { record, etag } of page.items) items.push({ ...place, record, etag });
    if (page.continuation) return { items, continuation: encode(place, page.continuation) };
    if (items.length >= limit) {
      const next = sorted[index + 1];
      return { items, continuation: next ? encode(next, null) : null };
    }
  }
  return { items, continuation: null };
}

function comparePlaces(a: PartitionPlace, b: PartitionPlace): number {
  return compare(a.collection, b.collection) || compare(a.partition, b.partition);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const prefix = "s1.";

function encode(place: PartitionPlace, q: string | null): string {
  const body = JSON.stringify({ c: place.collection, p: place.partition, q });
  return prefix + Buffer.from(body, "utf8").toString("base64url");
}

/**
 * The partition and query continuation a scan's continuation names.
 * @throws {StoreContinuationError} for one {@link scanPartitions} did not issue
 */
function decodeScanCursor(token: string): PartitionPlace & { q: string | null } {
  if (!token.startsWith(prefix)) throw new StoreContinuationError();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token.slice(prefix.length), "base64url").toString("utf8"));
  } catch (cause) {
    throw new StoreContinuationError(undefined, { cause });
  }
  const { c, p, q } = (parsed ?? {}) as Record<string, unknown>;
  if (typeof c !== "string" || typeof p !== "string" || !(q === null || typeof q === "string")) {
    throw new StoreContinuationError();
  }
  return { collection: c, partition: p, q };
}

/**
 * Calls `visit` with every record of `store`, a page of `pageSize` at a time (none kept):
 * `Store.scan` read to its end, for tools that tally a whole store.
 */
export async function scanAll(
  store: Store,
  visit: (item: ScannedRecord) => void,
  pageSize = defaultScanLimit,
): Promise<void> {
  let continuation: string | null = null;
  do {
    const page = await store.scan({ limit: pageSize, continuation });
    for (const item of page.items) visit(item);
    continuation = page.continuation;
  } while (continuation);
}
