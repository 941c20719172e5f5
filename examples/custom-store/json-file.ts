/**
 * The whole store as one JSON file, written atomically: to a temporary file beside it,
 * flushed to disk, then renamed over it, so a crash leaves either the old file or the new
 * one, never half of one.
 */
import { randomUUID } from "node:crypto";
import { open, readFile, rename, rm } from "node:fs/promises";
import type { StoreRecord } from "formwork/ports";

/** A record as the file holds it, with its etag. */
export interface Entry {
  record: StoreRecord;
  etag: string;
}

/**
 * The records in memory: one map per partition of a collection, keyed by
 * {@link partitionKey}. Maps, not plain objects, so that an id like `__proto__` is a key.
 */
export type Data = Map<string, Map<string, Entry>>;

/** The key of a collection's partition in {@link Data}. */
export function partitionKey(collection: string, partition: string): string {
  return JSON.stringify([collection, partition]);
}

/** The file: every partition as `[key, entries]`. */
type FileFormat = { partitions: [string, Entry[]][] };

/** Reads the file; an empty store when there is none yet. */
export async function readData(path: string): Promise<Data> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return new Map();
    throw error;
  }
  const { partitions } = JSON.parse(text) as FileFormat;
  return new Map(
    partitions.map(([key, entries]) => [key, new Map(entries.map((e) => [e.record.id, e]))]),
  );
}

/** Replaces the file with `data`, atomically (see above). */
export async function writeData(path: string, data: Data): Promise<void> {
  const temporary = `${path}.${randomUUID()}.tmp`;
  try {
    const handle = await open(temporary, "w");
    try {
      const file: FileFormat = {
        partitions: [...data].map(([key, entries]) => [key, [...entries.values()]]),
      };
      await handle.writeFile(JSON.stringify(file));
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
