import { mkdir, readdir, rename, rm, unlink } from "node:fs/promises";
import { isNotFound } from "formwork/ports/kit";
import { lowdbError } from "./errors.ts";
import { tombstoneFor } from "./file-names.ts";

/** Creates a partition's folder and its parents; one already there is fine. */
export async function createFolder(folder: string): Promise<void> {
  try {
    await mkdir(folder, { recursive: true, mode: 0o700 });
  } catch (cause) {
    throw lowdbError(`cannot create ${folder}`, cause);
  }
}

/**
 * Renames a partition's folder out of the way, which removes the partition at once.
 * @returns where it went, or `undefined` when there was no folder
 */
export async function moveAway(folder: string): Promise<string | undefined> {
  const tombstone = tombstoneFor(folder);
  try {
    await rename(folder, tombstone);
    return tombstone;
  } catch (cause) {
    if (isNotFound(cause)) return undefined;
    throw lowdbError(`cannot delete ${folder}`, cause);
  }
}

/** Deletes a folder moved away by `moveAway`. */
export async function removeTree(folder: string): Promise<void> {
  try {
    await rm(folder, { recursive: true, force: true });
  } catch (cause) {
    throw lowdbError(`cannot delete ${folder}`, cause);
  }
}

/** Deletes a file; one already gone is fine. */
export async function removeFile(path: string): Promise<void> {
  try {
    await unlink(path);
  } catch (cause) {
    if (!isNotFound(cause)) throw lowdbError(`cannot delete ${path}`, cause);
  }
}

/**
 * The folders directly under `path`, hidden ones left out (deleted partitions' tombstones,
 * damaged files moved aside by repair); none when `path` does not exist.
 */
export async function listFolders(path: string): Promise<string[]> {
  try {
    const entries = await readdir(path, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && !e.name.startsWith(".")).map((e) => e.name);
  } catch (cause) {
    if (isNotFound(cause)) return [];
    throw lowdbError(`cannot list ${path}`, cause);
  }
}
