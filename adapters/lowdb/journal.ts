import { Buffer } from "node:buffer";
import { writeSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { join } from "node:path";
import { StoreUnavailableError } from "formwork/ports";
import { lowdbError } from "./errors.ts";
import { encodeEntry, type JournalEntry } from "./journal-entries.ts";
import { journalFile, syncFolder } from "./journal-files.ts";
import { Mutex } from "./mutex.ts";

/**
 * When a write counts as done: `"process"` once the operating system has it (it survives
 * the process being killed), `"machine"` once it is on the disk (`fdatasync`; it survives
 * a power loss too).
 */
export type Durability = "process" | "machine";

interface Waiting {
  line: Buffer;
  undo: () => void;
  resolve: () => void;
  reject: (error: Error) => void;
}

/**
 * The append-only journal every change goes through. Entries appended while a batch is
 * being written wait and then go out together in one `write` (group commit), and each
 * caller's promise settles with its batch. When a batch fails, it and every entry queued
 * behind it (which may build on it) are undone in reverse order, so memory again matches
 * the file, and the file is cut back to its last whole batch; if even that fails, the
 * journal refuses every later write.
 */
export class Journal {
  readonly #directory: string;
  readonly #durability: Durability;
  readonly #onGrown: (bytes: number) => void;
  readonly #mutex = new Mutex();
  #handle: FileHandle;
  #seq: number;
  #size = 0;
  #queue: Waiting[] = [];
  #draining: Promise<void> | undefined;
  #broken: Error | undefined;

  private constructor(
    directory: string,
    seq: number,
    handle: FileHandle,
    durability: Durability,
    onGrown: (bytes: number) => void,
  ) {
    this.#directory = directory;
    this.#seq = seq;
    this.#handle = handle;
    this.#durability = durability;
    this.#onGrown = onGrown;
  }

  /**
   * Starts a new journal file with sequence number `seq`.
   * @param onGrown told the file's size after every batch, to start compaction
   */
  static async open(
    directory: string,
    seq: number,
    durability: Durability,
    onGrown: (bytes: number) => void,
  ): Promise<Journal> {
    const handle = await openJournal(directory, seq, durability);
    return new Journal(directory, seq, handle, durability, onGrown);
  }

  /** The sequence number of the file written now; older files hold older entries. */
  get seq(): number {
    return this.#seq;
  }

  /**
   * The file written now and its length up to the end of its last written batch: every
   * entry acknowledged so far lies in it below that length, or in an older file.
   */
  get position(): { seq: number; bytes: number } {
    return { seq: this.#seq, bytes: this.#size };
  }

  /**
   * Queues `entry`, whose change the caller has already made in memory.
   * @param undo takes that change back; called if the entry cannot be written
   * @returns settles once the entry's batch is written (or failed)
   */
  append(entry: JournalEntry, undo: () => void): Promise<void> {
    if (this.#broken) {
      undo();
      return Promise.reject(this.#broken);
    }
    const line = encodeEntry(entry);
    const written = new Promise<void>((resolve, reject) => {
      this.#queue.push({ line, undo, resolve, reject });
    });
    this.#draining ??= this.#drain();
    return written;
  }

  /** Makes every later write fail with `error`, e.g. after the directory's lock was lost. */
  fail(error: Error): void {
    this.#broken ??= unavailable(error);
  }

  /**
   * Goes on in a new file, between two batches.
   * @returns the new file's sequence number: the files before it hold only older entries
   */
  rotate(): Promise<number> {
    return this.#mutex.run(async () => {
      const handle = await openJournal(this.#directory, this.#seq + 1, this.#durability);
      const old = this.#handle;
      this.#handle = handle;
      this.#seq++;
      this.#size = 0;
      await old.close();
      return this.#seq;
    });
  }

  /** Waits for the entries queued and closes the file. */
  async close(): Promise<void> {
    await this.#draining;
    await this.#mutex.run(() => this.#handle.close());
  }

  async #drain(): Promise<void> {
    // Waiting one turn of the event loop lets the writes of concurrent requests join.
    await new Promise((resolve) => setImmediate(resolve));
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      await this.#mutex.run(() => this.#commit(batch));
    }
    this.#draining = undefined;
  }

  async #commit(batch: Waiting[]): Promise<void> {
    if (this.#broken) return this.#abandon(batch, this.#broken);
    const bytes = Buffer.concat(batch.map((waiting) => waiting.line));
    try {
      if (this.#durability === "process") writeWhole(this.#handle.fd, bytes);
      else {
        for (let done = 0; done < bytes.length; ) {
          done += (await this.#handle.write(bytes, done, bytes.length - done, null)).bytesWritten;
        }
        await this.#handle.datasync();
      }
    } catch (cause) {
      const error = unavailable(lowdbError(`cannot write ${this.#path}`, cause));
      this.#abandon(batch, error);
      try {
        await this.#handle.truncate(this.#size);
      } catch {
        this.#broken = error;
      }
      return;
    }
    this.#size += bytes.length;
    for (const waiting of batch) waiting.resolve();
    this.#onGrown(this.#size);
  }

  #abandon(batch: Waiting[], error: Error): void {
    const failed = [...batch, ...this.#queue];
    this.#queue = [];
    for (let i = failed.length - 1; i >= 0; i--) (failed[i] as Waiting).undo();
    for (const waiting of failed) waiting.reject(error);
  }

  get #path(): string {
    return join(this.#directory, journalFile(this.#seq));
  }
}

/**
 * Writes a batch to the page cache on this thread (docs/design.md §18). A batch is a few
 * KB that `write` takes in microseconds, while the thread pool's round trip costs tens of
 * them and, on a server pinned to one core, a switch to the pool's thread and back: most of
 * what an S5 page's audit entry (docs/design.md §25) cost. Batches still form while the
 * loop turns; only `machine` durability, which waits for the disk, goes to the pool.
 */
function writeWhole(fd: number, bytes: Buffer): void {
  for (let done = 0; done < bytes.length; ) {
    done += writeSync(fd, bytes, done, bytes.length - done);
  }
}

async function openJournal(directory: string, seq: number, durability: Durability) {
  const path = join(directory, journalFile(seq));
  try {
    const handle = await open(path, "a", 0o600);
    if (durability === "machine") await syncFolder(directory);
    return handle;
  } catch (cause) {
    throw unavailable(lowdbError(`cannot open ${path}`, cause));
  }
}

/** The failure a caller gets while the store cannot write; the service answers it 503. */
export function unavailable(cause: Error): StoreUnavailableError {
  return new StoreUnavailableError(`lowdb store cannot write: ${cause.message}`, { cause });
}
