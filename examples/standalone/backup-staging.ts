/**
 * The standalone server's side of an online backup (docs/design.md §23): a staging folder
 * inside `DATA_DIR` that holds a frozen copy of the data folder, mostly hard links, which
 * the backup route then streams at leisure.
 */
import { randomUUID } from "node:crypto";
import {
  constants,
  copyFileSync,
  linkSync,
  mkdirSync,
  readdirSync,
  rmdirSync,
  statSync,
  unlinkSync,
} from "node:fs";
import { chmod, copyFile, mkdir, readdir, rm, stat } from "node:fs/promises";
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
    const blobs = new BlobLinks(join(dataDir, "files"), join(folder, "files"));
    await blobs.link();
    const records = await store.backupInto(join(folder, "records"));
    await blobs.link();
    const entries = ["records", "files"];
    let files = records.files + blobs.files;
    let bytes = records.bytes + blobs.bytes;
    for (const secret of SECRETS) {
      const size = await copySecret(join(dataDir, secret), join(folder, secret));
      if (size === undefined) continue;
      entries.push(secret);
      files++;
      bytes += size;
    }
    return { folder, entries, files, bytes };
  } catch (error) {
    await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Removes a staging folder with synchronous calls, a slice at a time: `rm`'s thousands of
 * calls through the thread pool would queue the journal writes of the requests served
 * meanwhile behind them.
 */
export async function removeStaging(folder: string): Promise<void> {
  let calls = 0;
  const remove = async (path: string): Promise<void> => {
    for (const entry of listed(path)) {
      const inner = join(path, entry.name);
      if (entry.isDirectory()) await remove(inner);
      else unlinkSync(inner);
      if (++calls % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    rmdirSync(path);
  };
  try {
    await remove(folder);
  } catch (error) {
    if (codeOf(error) !== "ENOENT") throw error;
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
 * Hard-links the published attachment files (`<container>/<name>`, written once by a rename
 * and deleted by an unlink, so a link freezes one) into a staging folder, leaving out the fs
 * blob store's work folders (`.partial`, `.trash`). Each pass adds the files the ones before
 * did not link. Synchronous calls, a slice at a time between turns of the event loop: as
 * many calls through the thread pool cost the requests served meanwhile several times the CPU.
 */
class BlobLinks {
  readonly #linked = new Set<string>();
  files = 0;
  bytes = 0;

  constructor(
    readonly source: string,
    readonly target: string,
  ) {}

  async link(): Promise<void> {
    mkdirSync(this.target, { recursive: true, mode: 0o700 });
    let calls = 0;
    for (const container of listed(this.source)) {
      if (!container.isDirectory() || container.name.startsWith(".")) continue;
      const from = join(this.source, container.name);
      const to = join(this.target, container.name);
      mkdirSync(to, { recursive: true, mode: 0o700 });
      for (const blob of listed(from)) {
        const key = `${container.name}/${blob.name}`;
        if (!blob.isFile() || blob.name.startsWith(".") || this.#linked.has(key)) continue;
        const size = linkOrCopy(join(from, blob.name), join(to, blob.name));
        if (size !== undefined) {
          this.#linked.add(key);
          this.files++;
          this.bytes += size;
        }
        if (++calls % 64 === 0) await new Promise((resolve) => setImmediate(resolve));
      }
    }
  }
}

/** A folder's entries; none when it is gone (no attachment yet, a container deleted). */
function listed(folder: string) {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch (error) {
    if (codeOf(error) === "ENOENT") return [];
    throw error;
  }
}

/** Why `link` fails where a copy would work: another file system, or none that links. */
const CANNOT_LINK = new Set(["EXDEV", "EPERM", "ENOTSUP", "EOPNOTSUPP", "EMLINK", "ENOSYS"]);

/** Links `from` as `to` (or copies it). @returns its size, or `undefined` when it is gone */
function linkOrCopy(from: string, to: string): number | undefined {
  try {
    try {
      linkSync(from, to);
    } catch (error) {
      if (!CANNOT_LINK.has(codeOf(error))) throw error;
      copyFileSync(from, to, constants.COPYFILE_EXCL);
    }
    return statSync(to).size;
  } catch (error) {
    // Deleted since it was listed: its record was deleted before it (see stageBackup).
    if (codeOf(error) === "ENOENT") return undefined;
    throw error;
  }
}

/** Copies a secret file (`0600`). @returns its size, or `undefined` when there is none */
async function copySecret(from: string, to: string): Promise<number | undefined> {
  try {
    await copyFile(from, to, constants.COPYFILE_EXCL);
  } catch (error) {
    if (codeOf(error) === "ENOENT") return undefined;
    throw error;
  }
  await chmod(to, 0o600);
  return (await stat(to)).size;
}

function codeOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? "";
}
