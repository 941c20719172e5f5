import { copyFile, mkdir, rename, truncate, writeFile } from "node:fs/promises";
import { dirname, join, relative } from "node:path";
import { compareValues } from "formwork/ports/kit";
import { partitionFolder } from "./file-names.ts";
import { decodeEntries, entriesFrom, type RecordChange } from "./journal-entries.ts";
import { journalFile, listJournals } from "./journal-files.ts";
import { withStoreLock } from "./lock.ts";
import { encodeManifest, type ManifestEntry } from "./manifest.ts";
import { checkPartition, type PartitionCheck, readOptional } from "./partition-check.ts";
import { partitionFolders } from "./partition-names.ts";
import type { Bounds } from "./segments.ts";
import { boundValue, type Entry } from "./snapshot-format.ts";

/** One thing {@link repairLowdbStore} did: the file, where in it, what it did and dropped. */
export interface RepairStep {
  file: string;
  at?: string;
  did: string;
}

/** What {@link repairLowdbStore} did. */
export interface RepairReport {
  steps: RepairStep[];
  /** Where the damaged files went (never deleted); `undefined` when nothing was damaged. */
  damagedFolder: string | undefined;
}

/** How many record ids a step names before it says "and N more". */
const NAMED_IDS = 20;

/**
 * Repairs a stopped lowdb store, holding its lock. A journal file damaged in the middle is
 * cut at its first bad entry (everything before it is kept; a copy of the whole file goes
 * aside). A damaged segment file is moved aside: its records are lost, but for those the
 * journal still holds, which the next start replays. A damaged manifest is moved aside
 * and rebuilt from the segment files, each owning the ids from its lowest one. Manifest
 * bounds that leave out a value are dropped (the segment is then read for every page).
 * Damaged files go to `<directory>/.damaged-<time>/` under their own relative paths.
 * @throws {StoreLockedError} when a running process holds the directory
 */
export function repairLowdbStore(directory: string, now = new Date()): Promise<RepairReport> {
  return withStoreLock(directory, async () => {
    const aside = join(directory, `.damaged-${now.toISOString().replace(/[:.]/g, "-")}`);
    const report: RepairReport = { steps: [], damagedFolder: undefined };
    const keep = async (path: string, move: boolean) => {
      const target = join(aside, relative(directory, path));
      await mkdir(dirname(target), { recursive: true, mode: 0o700 });
      await (move ? rename(path, target) : copyFile(path, target));
      report.damagedFolder = aside;
      return target;
    };
    const journaled = new Set<string>();
    for (const seq of await listJournals(directory)) {
      await repairJournal(join(directory, journalFile(seq)), report, keep, (change) =>
        journaled.add(recordKey(partitionFolder(directory, change.c, change.p), idOf(change))),
      );
    }
    for (const { folder } of await partitionFolders(directory)) {
      const check = await checkPartition(folder);
      await repairPartition(check, report, keep, (id) => journaled.has(recordKey(folder, id)));
    }
    return report;
  });
}

type Keep = (path: string, move: boolean) => Promise<string>;

async function repairJournal(
  file: string,
  report: RepairReport,
  keep: Keep,
  kept: (change: RecordChange) => void,
) {
  const bytes = (await readOptional(file)) ?? new Uint8Array();
  const { entries, validBytes, resumesAt } = decodeEntries(bytes);
  for (const entry of entries) {
    for (const change of entry.o === "batch" ? entry.b : [entry]) {
      if (change.o !== "clear") kept(change);
    }
  }
  if (resumesAt === undefined) return;
  const copy = await keep(file, false);
  await truncate(file, validBytes);
  const dropped = entriesFrom(bytes, resumesAt);
  const changes = dropped.flatMap((entry) => (entry.o === "batch" ? entry.b : [entry]));
  const ids = changes.map((c) => `${c.c}/${c.p}/${c.o === "clear" ? "*" : idOf(c)}`);
  report.steps.push({
    file,
    at: `byte ${validBytes}`,
    did: `cut here: dropped ${bytes.byteLength - validBytes} bytes, the damaged entry and ${dropped.length} intact entries after it (${named(ids)}); ${entries.length} entries kept; the whole file is kept as ${copy}`,
  });
}

async function repairPartition(
  check: PartitionCheck,
  report: RepairReport,
  keep: Keep,
  inJournal: (id: string) => boolean,
) {
  for (const segment of check.segments) {
    if (!segment.fault) continue;
    const moved = await keep(segment.path, true);
    const ids = segment.salvagedIds ?? [];
    const back = ids.filter(inJournal).length;
    const known = ids.length
      ? `records lost unless the journal holds them: ${named(ids)}; ${back} of them are in the journal and come back at the next start`
      : "the ids of its records are not known; those the journal holds come back at the next start";
    report.steps.push({
      file: segment.path,
      did: `${segment.fault}: moved to ${moved}; ${known}`,
    });
  }
  if (check.manifestFault) {
    const moved = await keep(check.manifestPath, true);
    const listed = rebuiltManifest(check);
    if (listed.length > 0) await writeManifest(check.manifestPath, listed);
    report.steps.push({
      file: check.manifestPath,
      did: `${check.manifestFault}: moved to ${moved}; rebuilt from ${listed.length} segment files by their lowest ids (a file a crashed compaction left may bring back records deleted since)`,
    });
  } else if (check.mismatches.length > 0) {
    const wrong = new Set(check.mismatches.map((m) => m.file));
    const listed = check.listed.map(({ low, file, bounds }) =>
      wrong.has(file) ? { low, file } : { low, file, bounds },
    );
    await writeManifest(check.manifestPath, listed);
    for (const { file, problem } of check.mismatches) {
      report.steps.push({
        file: check.manifestPath,
        did: `${problem}: dropped the bounds of ${file}, which is now read for every page`,
      });
    }
  }
}

/** The manifest of a partition's readable, non-empty segment files, by their lowest ids. */
function rebuiltManifest(check: PartitionCheck): ManifestEntry[] {
  const files = check.segments
    .filter((s) => !s.fault && (s.entries?.size ?? 0) > 0)
    .map((s) => ({ s, low: [...(s.entries as Map<string, Entry>).keys()].sort()[0] as string }))
    .sort((a, b) => (a.low < b.low ? -1 : a.low > b.low ? 1 : 0));
  return files.map(({ s, low }, index) => ({
    low: index === 0 ? "" : low,
    file: s.file,
    bounds: boundsOf(s.entries as Map<string, Entry>, s.indexed ?? []),
  }));
}

/** The bounds of each field among the entries (never less than they hold). */
function boundsOf(entries: Map<string, Entry>, fields: string[]) {
  const all: Record<string, Bounds | null> = {};
  for (const field of fields) {
    let bounds: Bounds | undefined;
    for (const { record } of entries.values()) {
      const value = boundValue(record, field);
      if (!bounds) bounds = [value, value];
      else if (compareValues(value, bounds[0]) < 0) bounds[0] = value;
      else if (compareValues(value, bounds[1]) > 0) bounds[1] = value;
    }
    all[field] = bounds ?? null;
  }
  return all;
}

async function writeManifest(path: string, segments: ManifestEntry[]) {
  await writeFile(`${path}.tmp`, encodeManifest({ segments }), { mode: 0o600 });
  await rename(`${path}.tmp`, path);
}

function idOf(change: RecordChange): string {
  return change.o === "put" ? change.r.id : change.i;
}

function recordKey(folder: string, id: string): string {
  return `${folder}\u0000${id}`;
}

function named(ids: string[]): string {
  if (ids.length === 0) return "no record ids known";
  const shown = ids.slice(0, NAMED_IDS).join(", ");
  return ids.length > NAMED_IDS ? `${shown} and ${ids.length - NAMED_IDS} more` : shown;
}
