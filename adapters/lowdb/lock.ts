import { chmod, mkdir, readFile, rmdir, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { isNotFound } from "formwork/ports/kit";
import { lock } from "proper-lockfile";
import { lowdbError } from "./errors.ts";
import { removeFile } from "./folders.ts";

/** The lock folder proper-lockfile creates inside the store's directory. */
export const LOCK_FOLDER = "formwork.lock";
/**
 * The file naming the process that holds the lock. It lies beside the lock folder: a file
 * written inside would change the folder's mtime, which proper-lockfile takes for a takeover.
 */
export const OWNER_FILE = "formwork.pid";

// proper-lockfile refreshes the lock folder's mtime every UPDATE ms and treats a folder
// older than STALE ms as abandoned; a live owner also notices within UPDATE ms when another
// process took its lock over (its mtime is no longer the one it wrote).
const STALE = 10_000;
const UPDATE = 2_000;
const TAKEOVERS = 3;
const OWNERLESS_WAIT = 100;

/** Thrown when another live process holds the store's directory. */
export class StoreLockedError extends Error {
  /** The directory that is in use. */
  readonly directory: string;
  /** The process id of its holder. */
  readonly pid: number;

  constructor(directory: string, pid: number) {
    super(`${directory} is in use by another Formwork process (pid ${pid})`);
    this.name = "StoreLockedError";
    this.directory = directory;
    this.pid = pid;
  }
}

/**
 * Takes the directory's lock for this process: proper-lockfile's lock folder (an atomic
 * `mkdir`), then this process's pid in `formwork.pid`. Releasing removes the pid first, and
 * a takeover removes it before the folder, so a pid file without a folder is never read and
 * a fresh folder never shows the pid of the owner it replaced.
 *
 * A lock left by a killed process is taken over at once when its pid names a process that
 * no longer runs, or when the folder went stale (no refresh for 10 s, e.g. the pid was
 * reused). A fresh folder without a pid yet belongs to a process between its `mkdir` and
 * its pid write: we wait for it. The race left: two processes that start at the same moment
 * over a dead owner's lock may both remove it and both `mkdir`; the loser notices within
 * 2 s that the folder's mtime is not its own, and `onCompromised` then fails its store for
 * good, so two writers never run on together for long.
 * @returns a function that releases the lock
 * @throws {StoreLockedError} when a live process holds the lock
 */
export async function lockDirectory(
  directory: string,
  onCompromised: (error: Error) => void,
): Promise<() => Promise<void>> {
  try {
    await mkdir(directory, { recursive: true, mode: 0o700 });
    // The records are personal data: the owner alone may enter the folder, whatever mode
    // an older version created it with (segment files are written by lowdb at the umask's).
    await chmod(directory, 0o700);
  } catch (cause) {
    throw lowdbError(`cannot create ${directory}`, cause);
  }
  const folder = join(directory, LOCK_FOLDER);
  const options = { lockfilePath: folder, stale: STALE, update: UPDATE, onCompromised };
  const deadline = Date.now() + STALE + UPDATE;
  for (let takeovers = 0; ; ) {
    try {
      const release = await lock(directory, options);
      await writeOwner(directory, folder);
      return async () => {
        await removeFile(join(directory, OWNER_FILE));
        // After a compromise proper-lockfile has let go already (ERELEASED).
        await release().catch(() => {});
      };
    } catch (error) {
      // ENOTEMPTY: proper-lockfile found the folder stale and could not rmdir it (our pid).
      const code = (error as { code?: unknown }).code;
      if (code !== "ELOCKED" && code !== "ENOTEMPTY") {
        throw lowdbError(`cannot lock ${directory}`, error);
      }
      const { owner, stale } = await inspectLock(directory, folder);
      if (owner !== undefined && (await isAlive(owner)) && !stale) {
        throw new StoreLockedError(directory, owner);
      }
      if ((owner !== undefined || stale) && takeovers < TAKEOVERS) {
        takeovers++;
        await removeFile(join(directory, OWNER_FILE));
        await removeLockFolder(folder);
      } else if (Date.now() > deadline) {
        throw lowdbError(`cannot lock ${directory}: its lock stays held by no known process`);
      } else {
        await new Promise((resolve) => setTimeout(resolve, OWNERLESS_WAIT));
      }
    }
  }
}

/** Closes the lock folder to its owner (0700) and writes the pid file beside it (0600). */
async function writeOwner(directory: string, folder: string): Promise<void> {
  const file = join(directory, OWNER_FILE);
  try {
    // proper-lockfile's mkdir follows the umask; chmod keeps the mtime it compares.
    await chmod(folder, 0o700);
    await writeFile(file, String(process.pid), { mode: 0o600 });
    // The mode applies only to a new file, and through the umask.
    await chmod(file, 0o600);
  } catch (cause) {
    throw lowdbError(`cannot take the lock ${folder}`, cause);
  }
}

/** The pid in a lock folder (if any) and whether the folder went unrefreshed too long. */
async function inspectLock(
  directory: string,
  folder: string,
): Promise<{ owner?: number; stale: boolean }> {
  let stale: boolean;
  try {
    stale = (await stat(folder)).mtimeMs < Date.now() - STALE;
  } catch (cause) {
    if (isNotFound(cause)) return { stale: false };
    throw lowdbError(`cannot read the lock ${folder}`, cause);
  }
  try {
    const pid = Number.parseInt(await readFile(join(directory, OWNER_FILE), "utf8"), 10);
    return Number.isInteger(pid) && pid > 0 ? { owner: pid, stale } : { stale };
  } catch (cause) {
    if (isNotFound(cause)) return { stale };
    throw lowdbError(`cannot read the lock ${folder}`, cause);
  }
}

/**
 * Whether a process with that id runs (EPERM: it does, under another user). A process
 * killed with -9 stays a zombie until its parent reaps it, and `kill(pid, 0)` still finds
 * it: on Linux its state in `/proc/<pid>/stat` tells; elsewhere `kill` alone decides.
 */
async function isAlive(pid: number): Promise<boolean> {
  if (pid === process.pid) return true;
  const state = await processState(pid);
  if (state !== undefined) return state !== "Z" && state !== "X";
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: unknown }).code === "EPERM";
  }
}

/** The state letter of `/proc/<pid>/stat` (`R`, `S`, `Z`, …), or undefined where unreadable. */
async function processState(pid: number): Promise<string | undefined> {
  let line: string;
  try {
    line = await readFile(`/proc/${pid}/stat`, "utf8");
  } catch {
    // No /proc, or no such process: `kill` decides.
    return undefined;
  }
  // "pid (comm) state …": the command name may itself hold spaces and parentheses.
  return line.slice(line.lastIndexOf(")") + 1).trim()[0];
}

async function removeLockFolder(folder: string): Promise<void> {
  try {
    await rmdir(folder);
  } catch (cause) {
    if (!isNotFound(cause)) throw lowdbError(`cannot remove the stale lock ${folder}`, cause);
  }
}

/**
 * Runs `work` on a stopped store's directory while holding its lock, as a store would: for the
 * offline tools (verify, repair).
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
