/**
 * Copying what the service stored, every record with its files, from one `Store` and
 * `BlobStore` to another (docs/design.md §24): the way from the embedded store to Cosmos DB
 * and Azure Blob Storage, or between any two adapters, through the ports alone.
 */
import { attachmentBlobOf } from "../domain/attachments/index.ts";
import type { BlobStore } from "../ports/blob-store.ts";
import type { ScannedRecord, ScanPage, Store } from "../ports/store.ts";
import { type CollectionCount, countRecords, type FileCounts } from "./copy-counts.ts";
import { chunksOf, createAll } from "./record-chunks.ts";

export type { CollectionCount, FileCounts } from "./copy-counts.ts";

/** Options of {@link copyStore}. */
export interface CopyStoreOptions {
  /** The store copied from; nothing writes to it meanwhile (a stopped server's). */
  from: Store;
  /** The store copied to. */
  to: Store;
  /** Where the files of `from` are; without it, no file is copied. */
  fromBlobs?: BlobStore;
  /** Where the files go; needed with `fromBlobs`. */
  toBlobs?: BlobStore;
  /**
   * Chunks copied at once: each a batch of up to 50 records of one partition (with their
   * files first), or those records one by one when some are there already. @default 16
   */
  concurrency?: number;
  /**
   * The most records of one partition written by one `Store.batch`; 1 writes each with its
   * own `create`. @default 50
   */
  chunkRecords?: number;
  /** Records read per page of the scan. @default 500 */
  pageSize?: number;
  /** Told after the count, after every chunk of records, and before the check. */
  onProgress?(progress: CopyProgress): void;
}

/** How far a copy is. */
export interface CopyProgress {
  /** Records in the source, counted before the copy starts. */
  total: number;
  /** Records done: written now, or found already there. */
  done: number;
  /** Of those, found already there (an earlier run wrote them). */
  existed: number;
  /** Files written. */
  files: number;
  /** `"copying"`, then `"checking"` once, while the target's records are counted. */
  phase: "copying" | "checking";
}

/** What a copy did, and the counts of both stores after it. */
export interface CopyReport {
  /** Per collection, the records in the source and, after the copy, in the target. */
  collections: CollectionCount[];
  files: FileCounts;
  /** Records written by this run. */
  written: number;
  /** Records this run found already in the target, left as they were. */
  existed: number;
  /** Whether every collection counts as many records in the target as in the source. */
  matches: boolean;
}

/**
 * Copies every record of `from` (its `scan`) into `to`, each attachment's file from
 * `fromBlobs` to `toBlobs` before its record. Idempotent, so that a run cut short (a crash,
 * kill -9) is finished by running it again, duplicating nothing:
 *
 * - records are created, those of one partition 50 at a time in one `batch`; one whose id
 *   the target already holds is left as it is (an earlier run wrote it, or the target's
 *   service changed it since): a batch that meets one is written record by record instead;
 * - a file is written before its record, so a record already in the target has its file
 *   there too, whole (a blob store never shows a partial blob); a file written without its
 *   record (the run cut in between) is written again, replacing itself.
 *
 * Records are counted first (for progress), and both stores again at the end, collection by
 * collection. A file the source lacks (an upload a crash cut short) is counted, not fatal.
 * @throws what a store throws, other than a create's conflict; run it again to go on.
 */
export async function copyStore(options: CopyStoreOptions): Promise<CopyReport> {
  const { from, to, fromBlobs, toBlobs } = options;
  if (fromBlobs && !toBlobs) throw new TypeError("copyStore: fromBlobs needs toBlobs");
  const pageSize = options.pageSize ?? 500;
  const concurrency = options.concurrency ?? 16;
  const source = await countRecords(from, pageSize);
  const progress: CopyProgress = {
    total: source.total,
    done: 0,
    existed: 0,
    files: 0,
    phase: "copying",
  };
  const files: FileCounts = { source: 0, written: 0, existed: 0, missing: 0 };
  options.onProgress?.({ ...progress });

  const copyFile = async (item: ScannedRecord) => {
    const blob = attachmentBlobOf(item.collection, item.partition, item.record);
    if (!blob || !fromBlobs || !toBlobs) return;
    files.source++;
    if (await holds(to, item)) {
      files.existed++;
      return;
    }
    const file = await fromBlobs.get(blob.container, blob.name);
    if (!file) {
      files.missing++;
      return;
    }
    await toBlobs.put(blob.container, blob.name, file.body, file.info);
    files.written++;
    progress.files++;
  };
  const copyChunk = async (chunk: ScannedRecord[]) => {
    // A chunk of attachments holds up to 50 files: a few at once, as the records are.
    await inParallel(chunk, filesAtOnce, copyFile);
    progress.existed += await createAll(to, chunk);
    progress.done += chunk.length;
    options.onProgress?.({ ...progress });
  };

  let next: Promise<ScanPage> | undefined = from.scan({
    limit: pageSize,
  });
  while (next) {
    const page: ScanPage = await next;
    // The next page is read while this one is written.
    next = page.continuation
      ? from.scan({ limit: pageSize, continuation: page.continuation })
      : undefined;
    // Awaited below; a copy that fails first must not leave its failure unhandled.
    next?.catch(() => {});
    await inParallel(chunksOf(page.items, options.chunkRecords), concurrency, copyChunk);
  }
  progress.phase = "checking";
  options.onProgress?.({ ...progress });
  const target = await countRecords(to, pageSize);
  const names = [...new Set([...source.byCollection.keys(), ...target.byCollection.keys()])];
  const collections = names.sort().map((collection) => ({
    collection,
    source: source.byCollection.get(collection) ?? 0,
    target: target.byCollection.get(collection) ?? 0,
  }));
  return {
    collections,
    files,
    written: progress.done - progress.existed,
    existed: progress.existed,
    matches: collections.every((c) => c.source === c.target),
  };
}

/** Files of one chunk copied at once. */
const filesAtOnce = 8;

/** Whether the target holds the record already, and with it its file. */
async function holds(to: Store, item: ScannedRecord): Promise<boolean> {
  return (await to.get(item.collection, item.partition, item.record.id)) !== null;
}

/**
 * Runs `work` over `items`, at most `limit` at once. After a failure no item is started, and
 * once those under way are done it throws the first failure: nothing is left writing.
 */
async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>) {
  let index = 0;
  const failures: unknown[] = [];
  const worker = async () => {
    while (index < items.length && failures.length === 0) {
      try {
        await work(items[index++] as T);
      } catch (error) {
        failures.push(error);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failures.length > 0) throw failures[0];
}
