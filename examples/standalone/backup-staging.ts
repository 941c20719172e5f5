/**
 * The standalone server's side of an online backup (docs/design.md §23): a staging folder
 * inside `DATA_DIR` that holds a frozen copy of the data folder, mostly hard links, which
 * the backup route then streams at leisure.
 */
import { randomUUID } from "node:crypto";
import { constants } from "node:fs";
import { chmod, copyFile, link, mkdir, readdir, rm, stat } from "node:fs/promises";
import { join } from "node:path";
import type { LowdbStore } from "formwork/adapters/lowdb";

/** The secrets a restored server needs: links, customer tokens and the admin CLI go on working. */
const SECRETS = ["signing-secret", "customer-token-secret", "admin-secret"];

/** Staging folders start with this, so that a start can find what a crash left. */
const STAGING_PREFIX = ".backup-";

/** A staged backup: where it lies and what it holds. */
export interface Staged {
  folder: string;
  /** The top-level entries, as the archive lists them. */
  entries: string[];
  files: number;
  bytes: number;
}

/**
 * Stages a backup of `dataDir` (lowdb files under `records/`, attachment files under
 * `files/`, the secrets). Attachment files are linked once before the store's copy and once
 * after it: every submission acknowledged before the call had its files published before
 * the first pass, and a file gone by then had its record deleted first (S7 and the sweep
 * delete records, then files), so the store's copy, taken later, has no record of it
 * either. The second pass adds the files of submissions acknowledged meanwhile.
 */
export async function stageBackup(dataDir: string, store: LowdbStore): Promise<Staged> {
  const folder = join(dataDir, `${STAGING_PREFIX}${randomUUID()}`);
  await mkdir(folder, { mode: 0o700 });
  try {
    const blobs = join(dataDir, "files");
    const blobCopy = join(folder, "files");
    await linkBlobs(blobs, blobCopy);
    await store.backupInto(join(folder, "records"));
    await linkBlobs(blobs, blobCopy);
    const entries = ["records", "files"];
    for (const secret of SECRETS) {
      if (await copySecret(join(dataDir, secret), join(folder, secret))) entries.push(secret);
    }
    return { folder, entries, ...(await sizeOf(folder)) };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

/** Removes staging folders a crash left behind; call it once the store holds its lock. */
export async function removeStaleStaging(dataDir: string): Promise<void> {
  for (const name of await readdir(dataDir)) {
    if (name.startsWith(STAGING_PREFIX)) {
      await rm(join(dataDir, name), { recursive: true, force: true });
    }
  }
}

/**
 * Hard-links every published attachment file (`<container>/<name>`, written once by a
 * rename and deleted by an unlink, so a link freezes it) into `target`, leaving out the fs
 * blob store's work folders (`.partial`, `.trash`) and files linked already.
 */
async function linkBlobs(source: string, target: string): Promise<void> {
  await mkdir(target, { recursive: true, mode: 0o700 });
  for (const container of await listed(source)) {
    if (!container.isDirectory() || container.name.startsWith(".")) continue;
    const from = join(source, container.name);
    const to = join(target, container.name);
    await mkdir(to, { recursive: true, mode: 0o700 });
    for (const blob of await listed(from)) {
      if (!blob.isFile() || blob.name.startsWith(".")) continue;
      await linkOrCopy(join(from, blob.name), join(to, blob.name));
    }
  }
}

/** A folder's entries; none when it is gone (no attachment yet, a container deleted). */
async function listed(folder: string) {
  try {
    return await readdir(folder, { withFileTypes: true });
  } catch (error) {
    if (codeOf(error) === "ENOENT") return [];
    throw error;
  }
}

/** Why `link` fails where a copy would work: another file system, or none that links. */
const CANNOT_LINK = new Set(["EXDEV", "EPERM", "ENOTSUP", "EOPNOTSUPP", "EMLINK", "ENOSYS"]);

async function linkOrCopy(from: string, to: string): Promise<void> {
  try {
    await link(from, to);
  } catch (error) {
    const code = codeOf(error);
    // Linked by the first pass, or deleted since it was listed: nothing to do.
    if (code === "EEXIST" || code === "ENOENT") return;
    if (!CANNOT_LINK.has(code)) throw error;
    await copyFile(from, to, constants.COPYFILE_EXCL).catch((copyError: unknown) => {
      if (codeOf(copyError) !== "ENOENT" && codeOf(copyError) !== "EEXIST") throw copyError;
    });
  }
}

/** Copies a secret file (`0600`). @returns whether there was one */
async function copySecret(from: string, to: string): Promise<boolean> {
  try {
    await copyFile(from, to, constants.COPYFILE_EXCL);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return false;
    throw error;
  }
  await chmod(to, 0o600);
  return true;
}

/** How many files a folder holds, and their bytes, sub-folders included. */
async function sizeOf(folder: string): Promise<{ files: number; bytes: number }> {
  let files = 0;
  let bytes = 0;
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    files++;
    bytes += (await stat(join(entry.parentPath, entry.name))).size;
  }
  return { files, bytes };
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? "";
}
