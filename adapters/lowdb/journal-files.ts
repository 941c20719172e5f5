import { open, readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { isNotFound } from "formwork/ports/kit";
import { JournalCorruptError, lowdbError } from "./errors.ts";
import { decodeEntries, type JournalEntry } from "./journal-entries.ts";

const JOURNAL = /^journal-(\d{12})\.log$/;

/** The name of the journal file with sequence number `seq`. */
export function journalFile(seq: number): string {
  return `journal-${String(seq).padStart(12, "0")}.log`;
}

/** The sequence numbers of the journal files in `directory`, oldest first. */
export async function listJournals(directory: string): Promise<number[]> {
  let files: string[];
  try {
    files = await readdir(directory);
  } catch (cause) {
    if (isNotFound(cause)) return [];
    throw lowdbError(`cannot list ${directory}`, cause);
  }
  return files
    .map((file) => JOURNAL.exec(file)?.[1])
    .filter((seq): seq is string => seq !== undefined)
    .map(Number)
    .sort((a, b) => a - b);
}

/**
 * Reads one journal file's intact entries. A torn tail is left out, and `warn` is told how
 * many bytes were dropped: they were never acknowledged to anyone, since a write is
 * acknowledged only once its whole batch was written. A bad entry with intact ones after it
 * is damage, not a torn write: nothing is dropped, the read fails.
 * @throws {JournalCorruptError} when an intact entry follows a bad one
 */
export async function readJournal(
  directory: string,
  seq: number,
  warn: (message: string) => void,
): Promise<JournalEntry[]> {
  const path = join(directory, journalFile(seq));
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (cause) {
    throw lowdbError(`cannot read ${path}`, cause);
  }
  const { entries, validBytes, resumesAt } = decodeEntries(bytes);
  if (resumesAt !== undefined) throw new JournalCorruptError(path, validBytes);
  if (validBytes < bytes.byteLength) {
    warn(
      `lowdb store: dropped the last ${bytes.byteLength - validBytes} bytes of ${path}: ` +
        `a write torn by a crash (${entries.length} intact entries kept)`,
    );
  }
  return entries;
}

/** Flushes a folder's entries (new or removed files) to the disk. */
export async function syncFolder(folder: string): Promise<void> {
  const handle = await open(folder, "r");
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Flushes a file's contents to the disk. */
export async function syncFile(path: string): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.datasync();
  } finally {
    await handle.close();
  }
}
