import type { Page, Query, Store, StoreRecord } from "./store.ts";

/**
 * Reads every record a query matches, page by page, without their etags. For partitions known
 * to stay small.
 */
export async function queryAll<T extends StoreRecord>(
  store: Store,
  collection: string,
  partition: string,
  query: Omit<Query, "continuation" | "limit"> = {},
): Promise<T[]> {
  const records: T[] = [];
  let continuation: string | null = null;
  do {
    const page: Page<T> = await store.query<T>(collection, partition, {
      ...query,
      limit: 1000,
      continuation,
    });
    for (const { record } of page.items) records.push(record);
    continuation = page.continuation;
  } while (continuation);
  return records;
}
