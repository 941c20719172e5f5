import { dirname, join } from "node:path";
import { removeFile } from "./folders.ts";
import type { FileGate } from "./gate.ts";
import type { Journal } from "./journal.ts";
import { journalFile, listJournals, syncFile, syncFolder } from "./journal-files.ts";
import type { Partition } from "./partition.ts";
import type { LowdbSettings } from "./store.ts";

/**
 * Background compaction: once the journal file has grown past `journalBytes`, the journal
 * goes on in a new file, every dirty segment is written to its snapshot file, and then the
 * older journal files, whose every entry the snapshots now hold, are deleted.
 *
 * Why this is safe: each entry sets a record's whole state (or deletes it, or empties a
 * partition), so replaying a journal file over snapshots written after that file began
 * ends in the same state as replaying it over older ones. A crash at any point therefore
 * loses nothing: until the delete, start replays the old files as well.
 */
export class Compactor {
  readonly #settings: LowdbSettings;
  readonly #partitions: () => Partition[];
  readonly #gate: FileGate;
  #journal: Journal | undefined;
  #running: Promise<void> | undefined;
  #finished = 0;

  /**
   * @param partitions the partitions now in memory: only they can be dirty
   * @param gate what a compaction passes, so that a backup's freeze never sees one half done
   */
  constructor(settings: LowdbSettings, partitions: () => Partition[], gate: FileGate) {
    this.#settings = settings;
    this.#partitions = partitions;
    this.#gate = gate;
  }

  /** Starts watching `journal`. */
  start(journal: Journal): void {
    this.#journal = journal;
  }

  /** Compactions finished since the store opened (`Store.stats`). */
  get finished(): number {
    return this.#finished;
  }

  /** Told the journal file's size after each batch. */
  grown(bytes: number): void {
    if (bytes >= this.#settings.journalBytes) this.soon();
  }

  /** Starts a compaction unless one runs. A failed one is retried after the next file fills. */
  soon(): void {
    if (this.#running || !this.#journal) return;
    const journal = this.#journal;
    this.#running = this.#compact(() => journal.rotate())
      .then(() => {
        this.#finished++;
      })
      .catch((error: unknown) => {
        this.#settings.warn(
          `lowdb store: compaction failed, the journal is kept: ${(error as Error).message}`,
        );
      })
      .finally(() => {
        this.#running = undefined;
      });
  }

  /**
   * After the journal was closed: waits for a compaction in flight, then writes every
   * snapshot and deletes every journal file, so that the next start replays nothing.
   * @throws when a snapshot cannot be written; the journal files are kept then
   */
  async finish(): Promise<void> {
    await this.#running;
    const journal = this.#journal;
    if (journal) await this.#compact(async () => journal.seq + 1);
  }

  /** @param rotate starts a new journal file and answers its sequence number */
  #compact(rotate: () => Promise<number>): Promise<void> {
    return this.#gate.changing(() => this.#compactNow(rotate));
  }

  async #compactNow(rotate: () => Promise<number>): Promise<void> {
    const { directory, durability } = this.#settings;
    const keep = await rotate();
    const written: string[] = [];
    for (const partition of this.#partitions()) {
      if (!partition.dirty) continue;
      written.push(...(await partition.writeSnapshots()));
    }
    if (durability === "machine") {
      for (const file of written) await syncFile(file);
      for (const folder of new Set(written.map((file) => dirname(file)))) await syncFolder(folder);
    }
    for (const seq of await listJournals(directory)) {
      if (seq < keep) await removeFile(join(directory, journalFile(seq)));
    }
  }
}
