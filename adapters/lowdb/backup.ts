import { constants, copyFileSync, linkSync, mkdirSync, readdirSync, statSync } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { join } from "node:path";
import { lowdbError } from "./errors.ts";
import type { FileGate } from "./gate.ts";
import type { Journal } from "./journal.ts";
import { journalFile, listJournals } from "./journal-files.ts";

/** What a backup holds. */
export interface BackupFiles {
  files: number;
  bytes: number;
}

/**
 * Makes `target` a copy of the store in `directory` as a crash at this instant would leave
 * it, cut at the last acknowledged batch: every journal file older than the current one,
 * the current one up to its written length, and every segment and manifest file. While it
 * gathers them, compaction and partition deletions wait (see `FileGate`); writes and reads
 * go on. Files are hard-linked, which costs no copy and freezes them, as the store never
 * changes a segment, manifest or older journal file in place (it replaces them by rename and
 * deletes them by unlink); where a link fails (another file system), they are copied. The
 * current journal file is copied up to its length, as it is appended to meanwhile.
 *
 * The lock folder, the pid file and the store's own temporary files (names starting with
 * `.`: snapshots being written, partitions being deleted) are left out.
 *
 * Links are made with synchronous calls, a slice of {@link SLICE} at a time between turns of
 * the event loop: thousands of them through the thread pool cost the requests served
 * meanwhile several times the CPU (promises, callbacks) and queued their journal writes.
 * @param target a folder that does not exist yet; its parent must
 */
export async function backupInto(
  directory: string,
  target: string,
  journal: Journal,
  gate: FileGate,
): Promise<BackupFiles> {
  try {
    await mkdir(target, { mode: 0o700 });
  } catch (cause) {
    throw lowdbError(`cannot create the backup folder ${target}`, cause);
  }
  return gate.frozen(async () => {
    const totals: BackupFiles = { files: 0, bytes: 0 };
    const { seq, bytes } = journal.position;
    const turn = slices();
    for (const older of await listJournals(directory)) {
      if (older >= seq) continue;
      const name = journalFile(older);
      totals.bytes += linkOrCopy(join(directory, name), join(target, name));
      totals.files++;
    }
    const current = journalFile(seq);
    await copyPrefix(join(directory, current), join(target, current), bytes);
    totals.files++;
    totals.bytes += bytes;
    for (const collection of folders(directory)) {
      for (const partition of folders(join(directory, collection))) {
        const from = join(directory, collection, partition);
        const to = join(target, collection, partition);
        mkdirSync(to, { recursive: true, mode: 0o700 });
        for (const file of files(from)) {
          totals.bytes += linkOrCopy(join(from, file), join(to, file));
          totals.files++;
          await turn();
        }
      }
    }
    return totals;
  });
}

/** The sub-folders of a folder that the store made for collections and partitions. */
function folders(folder: string): string[] {
  // Encoded names never hold a `.` (see `encodeName`): that rules out the lock folder,
  // deleted partitions' tombstones and any folder someone else put here.
  return entries(folder)
    .filter((e) => e.isDirectory() && !e.name.includes("."))
    .map((e) => e.name);
}

/** The files of a partition's folder that are snapshots (not temporary files). */
function files(folder: string): string[] {
  return entries(folder)
    .filter((e) => e.isFile() && !e.name.startsWith("."))
    .map((e) => e.name);
}

function entries(folder: string) {
  try {
    return readdirSync(folder, { withFileTypes: true });
  } catch (cause) {
    throw lowdbError(`cannot list ${folder}`, cause);
  }
}

/** Hard-links `from` as `to`, or copies it where a link is impossible. @returns its size */
function linkOrCopy(from: string, to: string): number {
  try {
    try {
      linkSync(from, to);
    } catch (error) {
      if (!CANNOT_LINK.has((error as NodeJS.ErrnoException).code ?? "")) throw error;
      copyFileSync(from, to, constants.COPYFILE_EXCL);
    }
    return statSync(to).size;
  } catch (cause) {
    throw lowdbError(`cannot back up ${from}`, cause);
  }
}

/** How many synchronous file calls run between two turns of the event loop. */
const SLICE = 64;

/** A function to await after each call: every {@link SLICE} calls it yields a turn. */
export function slices(): () => Promise<void> {
  let calls = 0;
  return () =>
    ++calls % SLICE === 0 ? new Promise((resolve) => setImmediate(resolve)) : Promise.resolve();
}

/** Why `link` fails where a copy would work: another file system, or none that links. */
const CANNOT_LINK = new Set(["EXDEV", "EPERM", "ENOTSUP", "EOPNOTSUPP", "EMLINK", "ENOSYS"]);

/** Copies the first `length` bytes of `from` into a new file `to` (mode 0600). */
async function copyPrefix(from: string, to: string, length: number): Promise<void> {
  try {
    const source = await open(from, "r");
    try {
      const sink = await open(to, "wx", 0o600);
      try {
        const buffer = Buffer.alloc(Math.min(length, 1024 * 1024));
        for (let done = 0; done < length; ) {
          const want = Math.min(buffer.length, length - done);
          const { bytesRead } = await source.read(buffer, 0, want, done);
          if (bytesRead === 0) throw new Error(`the file ended at byte ${done} of ${length}`);
          await sink.write(buffer, 0, bytesRead);
          done += bytesRead;
        }
      } finally {
        await sink.close();
      }
    } finally {
      await source.close();
    }
  } catch (cause) {
    throw lowdbError(`cannot back up ${from}`, cause);
  }
}
