import { stat } from "node:fs/promises";
import { join } from "node:path";
import { isNotFound } from "formwork/ports/kit";
import { lowdbError } from "./errors.ts";
import { decodeName } from "./file-names.ts";
import { listFolders } from "./folders.ts";
import { decodeEntries } from "./journal-entries.ts";
import { journalFile, listJournals } from "./journal-files.ts";
import { LOCK_FOLDER, lockDirectory } from "./lock.ts";
import { readOptional } from "./partition-check.ts";

/** One partition's folder, with the names it encodes (`undefined`: a hashed long name). */
export interface PartitionFolder {
  folder: string;
  collection: string | undefined;
  partition: string | undefined;
}

/**
 * Runs `work` on a stopped store's directory while holding its lock, as a store would.
 * @throws {StoreLockedError} when a running process holds the directory
 * @throws naming the directory when there is none
 */
export async function withStoreLock<T>(directory: string, work: () => Promise<T>): Promise<T> {
  try {
    await stat(directory);
  } catch (cause) {
    if (isNotFound(cause)) throw lowdbError(`there is no store at ${directory}`);
    throw lowdbError(`cannot read ${directory}`, cause);
  }
  const release = await lockDirectory(directory, () => {});
  try {
    return await work();
  } finally {
    await release();
  }
}

/** Every partition folder under `directory`: `<collection>/<partition>/`, hidden ones left out. */
export async function partitionFolders(directory: string): Promise<PartitionFolder[]> {
  const found: PartitionFolder[] = [];
  for (const collection of await listFolders(directory)) {
    if (collection === LOCK_FOLDER) continue;
    for (const partition of await listFolders(join(directory, collection))) {
      found.push({
        folder: join(directory, collection, partition),
        collection: decodeName(collection),
        partition: decodeName(partition),
      });
    }
  }
  return found.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
}

/**
 * The partitions of `collection` in a stopped store: those with a folder, and those only the
 * journal names yet (written since the last compaction). For tools that check a store's
 * records offline (the service itself never lists partitions). A partition whose name was
 * too long to spell out as a folder name (`encodeName`'s hashed form) is listed only if the
 * journal names it.
 */
export async function listLowdbPartitions(
  directory: string,
  collection: string,
): Promise<string[]> {
  const names = new Set<string>();
  for (const { collection: c, partition } of await partitionFolders(directory)) {
    if (c === collection && partition !== undefined) names.add(partition);
  }
  for (const seq of await listJournals(directory)) {
    const bytes = await readOptional(join(directory, journalFile(seq)));
    for (const entry of bytes ? decodeEntries(bytes).entries : []) {
      for (const change of entry.o === "batch" ? entry.b : [entry]) {
        if (change.c === collection) names.add(change.p);
      }
    }
  }
  return [...names].sort();
}
