import { join } from "node:path";
import { decodeEntries } from "./journal-entries.ts";
import { journalFile, listJournals } from "./journal-files.ts";
import { withStoreLock } from "./lock.ts";
import { checkPartition, readOptional } from "./partition-check.ts";
import { partitionFolders } from "./partition-names.ts";

/** One finding of {@link verifyLowdbStore}: the file, where in it, what is wrong. */
export interface StoreFinding {
  file: string;
  /** Where in the file, when known: `byte 123`, `line 4`. */
  at?: string;
  problem: string;
}

/** What {@link verifyLowdbStore} found. */
export interface StoreReport {
  /** Damage: the store does not start, or a read of it fails (503), until it is repaired. */
  faults: StoreFinding[];
  /** Worth knowing, not damage: a torn journal tail, files of older formats, leftovers. */
  notes: StoreFinding[];
  journals: number;
  entries: number;
  partitions: number;
  segments: number;
  records: number;
}

/**
 * Checks a stopped lowdb store's every file, holding its lock: each journal entry's
 * checksum (a bad entry with intact ones after it is damage; at the very end, a torn write
 * the next start drops), each manifest's and segment file's checksum and every line of it,
 * and that the manifest's bounds cover what each file holds. Changes nothing.
 * @throws {StoreLockedError} when a running process holds the directory
 */
export function verifyLowdbStore(directory: string): Promise<StoreReport> {
  return withStoreLock(directory, async () => {
    const report: StoreReport = {
      faults: [],
      notes: [],
      journals: 0,
      entries: 0,
      partitions: 0,
      segments: 0,
      records: 0,
    };
    for (const seq of await listJournals(directory)) await checkJournal(directory, seq, report);
    for (const { folder } of await partitionFolders(directory)) {
      await checkFolder(folder, report);
    }
    return report;
  });
}

async function checkJournal(directory: string, seq: number, report: StoreReport) {
  const file = join(directory, journalFile(seq));
  const bytes = (await readOptional(file)) ?? new Uint8Array();
  const { entries, validBytes, resumesAt } = decodeEntries(bytes);
  report.journals++;
  report.entries += entries.length;
  const at = `byte ${validBytes}`;
  if (resumesAt !== undefined) {
    const problem = `the entry there fails its checksum and intact entries follow (from byte ${resumesAt}): damage, not a write torn by a crash; the store does not start`;
    report.faults.push({ file, at, problem });
  } else if (validBytes < bytes.byteLength) {
    const problem = `the last ${bytes.byteLength - validBytes} bytes are a write torn by a crash, never acknowledged; the next start drops them`;
    report.notes.push({ file, at, problem });
  }
}

async function checkFolder(folder: string, report: StoreReport) {
  const check = await checkPartition(folder);
  report.partitions++;
  if (check.manifestFault) {
    const problem = `${check.manifestFault}; the partition is not served (503)`;
    report.faults.push({ file: check.manifestPath, problem });
  } else if (check.manifest === "older") {
    report.notes.push({ file: check.manifestPath, problem: "no checksum (an older format)" });
  }
  let older = 0;
  for (const segment of check.segments) {
    report.segments++;
    if (segment.fault) {
      const problem = `${segment.fault}; the partition is not served (503)`;
      report.faults.push({ file: segment.path, problem });
      continue;
    }
    report.records += segment.entries?.size ?? 0;
    if (!segment.sealed) older++;
  }
  for (const { file, problem } of check.mismatches) {
    report.faults.push({ file: join(folder, file), problem });
  }
  if (older > 0) {
    const problem = `${older} segment files without a checksum (an older format), checked line by line; compaction adds one when it next rewrites them`;
    report.notes.push({ file: folder, problem });
  }
  for (const file of check.unlisted) {
    const problem = "a segment file the manifest does not list (left by a crash), never read";
    report.notes.push({ file: join(folder, file), problem });
  }
}
