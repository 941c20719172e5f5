/**
 * Which (collection, partition) each folder of the store holds, for `Store.scan`. Folder names
 * are encoded (`encodeName`) and decode back, except those too long to spell out
 * (`<prefix>~<hash>`): a partition folder under such a name gets a name file
 * (`name.json`) when compaction creates it. A folder written before name files existed is
 * named from its records when one of their string values (after a prefix of the folder's
 * own spelled-out start, as in `email:<address>`) encodes to it; else the scan fails naming
 * the folder, rather than leave its records out.
 */
import { readFile, rename, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { StoreRecord } from "formwork/ports";
import { isNotFound, type PartitionPlace } from "formwork/ports/kit";
import { lowdbError } from "./errors.ts";
import { decodedPrefix, decodeName, encodeName, isShortened, NAME_FILE } from "./file-names.ts";
import { listFolders } from "./folders.ts";
import { LOCK_FOLDER } from "./lock.ts";

/** A partition folder of the store, and its names when known without reading it. */
export interface PartitionFolder {
  folder: string;
  place: PartitionPlace | undefined;
}

/**
 * Writes a partition folder's name file when its name or its collection's is shortened, so
 * that a scan can tell what it holds. Written whole (a temporary file, then a rename).
 */
export async function noteNames(folder: string, place: PartitionPlace): Promise<void> {
  if (!isShortened(basename(folder)) && !isShortened(basename(dirname(folder)))) return;
  const file = join(folder, NAME_FILE);
  const temporary = `${file}.${process.pid}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(place)}\n`, { mode: 0o600 });
    await rename(temporary, file);
  } catch (cause) {
    throw lowdbError(`cannot write ${file}`, cause);
  }
}

/**
 * Every partition folder under `directory`, sorted, each with its names when they decode or
 * are noted; hidden folders (tombstones, damaged files moved aside) left out.
 */
export async function partitionFolders(directory: string): Promise<PartitionFolder[]> {
  const found: PartitionFolder[] = [];
  for (const collection of await listFolders(directory)) {
    if (collection === LOCK_FOLDER) continue;
    const collectionName = decodeName(collection);
    for (const partition of await listFolders(join(directory, collection))) {
      const folder = join(directory, collection, partition);
      const partitionName = decodeName(partition);
      const place =
        collectionName !== undefined && partitionName !== undefined
          ? { collection: collectionName, partition: partitionName }
          : await notedNames(folder);
      found.push({ folder, place });
    }
  }
  return found.sort((a, b) => (a.folder < b.folder ? -1 : a.folder > b.folder ? 1 : 0));
}

/**
 * The partition name of a folder written before name files, found among its records' string
 * values, each also after every start of the folder's spelled-out prefix.
 * @throws {Error} naming the folder when none encodes to its name
 */
export function nameFromRecords(
  folder: string,
  collection: string,
  records: Iterable<StoreRecord>,
): PartitionPlace {
  const encoded = basename(folder);
  const start = decodedPrefix(encoded.slice(0, encoded.indexOf("~")));
  const values = new Set<string>();
  for (const record of records) {
    for (const value of Object.values(record)) if (typeof value === "string") values.add(value);
  }
  for (const value of values) {
    for (let end = 0; end <= start.length; end++) {
      const candidate = start.slice(0, end) + value;
      if (encodeName(candidate) === encoded) return { collection, partition: candidate };
    }
  }
  throw lowdbError(
    `cannot tell which partition ${folder} holds: its name is shortened and the folder has no ${NAME_FILE} (written before this version); write one, {"collection":…,"partition":…}, to scan it`,
  );
}

async function notedNames(folder: string): Promise<PartitionPlace | undefined> {
  let text: string;
  try {
    text = await readFile(join(folder, NAME_FILE), "utf8");
  } catch (cause) {
    if (isNotFound(cause)) return undefined;
    throw lowdbError(`cannot read ${join(folder, NAME_FILE)}`, cause);
  }
  try {
    const { collection, partition } = JSON.parse(text) as Partial<PartitionPlace>;
    if (typeof collection === "string" && typeof partition === "string") {
      return { collection, partition };
    }
  } catch {
    // A damaged name file tells nothing: the records may still.
  }
  return undefined;
}
