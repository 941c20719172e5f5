import { scanAll } from "../ports/partition-scan.ts";
import type { Store } from "../ports/store.ts";

/** The records of one collection in the source and, after a copy, in the target. */
export interface CollectionCount {
  collection: string;
  source: number;
  target: number;
}

/** The files of a copy: attachment records met, and what became of their files. */
export interface FileCounts {
  /** Attachment records in the source, each with a file. */
  source: number;
  /** Files this run wrote. */
  written: number;
  /** Files left as they were: their record was in the target already, so they were too. */
  existed: number;
  /** Files the source lacks (an upload cut short by a crash): their records are copied. */
  missing: number;
}

/** The records of a store, in all and per collection, counted by one scan. */
export async function countRecords(
  store: Store,
  pageSize: number,
): Promise<{ total: number; byCollection: Map<string, number> }> {
  const byCollection = new Map<string, number>();
  let total = 0;
  await scanAll(
    store,
    ({ collection }) => {
      byCollection.set(collection, (byCollection.get(collection) ?? 0) + 1);
      total++;
    },
    pageSize,
  );
  return { total, byCollection };
}
