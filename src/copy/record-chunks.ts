import { type ScannedRecord, type Store, StoreConflictError } from "../ports/store.ts";

/** The most records one chunk writes by default: under Cosmos DB's 100 operations per batch. */
export const defaultChunkRecords = 50;
/** The most JSON one chunk writes: under Cosmos DB's 2 MB per transactional batch. */
const chunkBytes = 1024 * 1024;

/**
 * `items` in chunks that one `Store.batch` can write: records of one partition (on Cosmos DB
 * one partition key, so one transactional batch), at most `chunkRecords` and about 1 MiB of
 * JSON each, in the order the scan gave them.
 */
export function chunksOf(
  items: readonly ScannedRecord[],
  chunkRecords = defaultChunkRecords,
): ScannedRecord[][] {
  const open = new Map<string, { records: ScannedRecord[]; bytes: number }>();
  const chunks: ScannedRecord[][] = [];
  for (const item of items) {
    const bytes = JSON.stringify(item.record).length;
    let chunk = open.get(item.partition);
    if (!chunk || chunk.records.length >= chunkRecords || chunk.bytes + bytes > chunkBytes) {
      chunk = { records: [], bytes: 0 };
      open.set(item.partition, chunk);
      chunks.push(chunk.records);
    }
    chunk.records.push(item);
    chunk.bytes += bytes;
  }
  return chunks;
}

/**
 * Creates every record of `chunk` in `to`: in one batch, or, when the batch finds one of them
 * there already (a run cut short wrote it), one by one, leaving those there as they are.
 * @returns how many were there already
 */
export async function createAll(to: Store, chunk: readonly ScannedRecord[]): Promise<number> {
  if (chunk.length > 1) {
    try {
      await to.batch(
        chunk.map(({ collection, partition, record }) => ({
          op: "create" as const,
          collection,
          partition,
          record,
        })),
      );
      return 0;
    } catch (error) {
      if (!isExists(error)) throw error;
    }
  }
  let existed = 0;
  for (const { collection, partition, record } of chunk) {
    try {
      await to.create(collection, partition, record);
    } catch (error) {
      if (!isExists(error)) throw error;
      existed++;
    }
  }
  return existed;
}

function isExists(error: unknown): boolean {
  return error instanceof StoreConflictError && error.reason === "exists";
}
