import type { PartitionPlace } from "formwork/ports/kit";
import { newSegmentFile } from "./file-names.ts";
import { createFolder, removeFile } from "./folders.ts";
import type { Manifest } from "./manifest.ts";
import { noteNames } from "./partition-names.ts";
import type { PartitionView } from "./partition-view.ts";
import type { Segment } from "./segments.ts";

/** What snapshot writing needs to know of the store's settings. */
export interface SnapshotSettings {
  segmentSize: number;
  orderFields: readonly string[];
}

/** The partition whose snapshots are written. */
export interface SnapshotTarget {
  folder: string;
  /** The names of the partition, noted beside its files when its folder's are shortened. */
  place: PartitionPlace;
  view: PartitionView;
  /** Runs a step on the partition's operation chain. */
  run<T>(step: () => Promise<T>): Promise<T>;
  /** Waits for the partition's journal writes in flight. */
  settle(): Promise<void>;
}

/**
 * Writes a partition's dirty segments to their snapshot files, one step at a time on the
 * partition's chain, so that its calls go on in between (a step writes one file).
 *
 * First, in memory: segments grown past the segment size split into segments of that size
 * (new, without a file yet), and emptied ones (never the last) leave the manifest. Then
 * the files, in an order that keeps every record reachable from the files alone, whatever
 * step a crash interrupts: the new segments' files, then the manifest listing them, then
 * the other dirty segments (a split one's file still holds copies of the moved records
 * until then, which `Segment.load` ignores as outside its range), then the unlinks. Each
 * manifest write carries the order fields' bounds of the files already written.
 *
 * A step writes only changes already in the journal (it waits for the partition's writes
 * in flight), so that a change the journal refuses and undoes never reaches a snapshot. A
 * failure leaves memory as it is, the source of truth; the segments stay dirty and the
 * journal is kept. A `reset` (the partition deleted) ends the work.
 * @returns the files written
 */
export async function writeSnapshots(
  target: SnapshotTarget,
  settings: SnapshotSettings,
): Promise<string[]> {
  const { view } = target;
  const epoch = view.epoch;
  const written: string[] = [];
  const step = (op: (manifest: Manifest) => Promise<void>) =>
    target.run(async () => {
      if (view.epoch !== epoch) return false;
      await target.settle();
      await op(await view.manifest());
      return true;
    });
  const segments = (manifest: Manifest, persisted: boolean) =>
    manifest.entries
      .map((_, index) => view.loadedAt(manifest, index))
      .filter((s): s is Segment => s?.dirty === true && s.persisted === persisted);
  const writeAll = async (persisted: boolean) => {
    for (const segment of segments(await view.manifest(), persisted)) {
      const going = await step(async (manifest) => {
        // Written meanwhile, or split off a segment that is gone: nothing to do.
        if (!segment.dirty || !segments(manifest, persisted).includes(segment)) return;
        await segment.write();
        written.push(segment.path);
      });
      if (!going) return false;
    }
    return step(async (manifest) => {
      if (noteBounds(view, manifest, new Set(written), settings) || manifest.dirty) {
        written.push(await manifest.write());
      }
    });
  };
  const oversized = (manifest: Manifest) =>
    manifest.entries.some(
      (_, index) => (view.loadedAt(manifest, index)?.records.size ?? 0) > settings.segmentSize,
    );
  // Calls between the steps may grow a segment past the size again: a few rounds catch up.
  for (let round = 0; round < ROUNDS; round++) {
    let dropped: Segment[] = [];
    let work = false;
    const going = await step(async (manifest) => {
      work = view.dirty || oversized(manifest);
      if (!work) return;
      await createFolder(target.folder);
      await noteNames(target.folder, target.place);
      dropped = restructure(target, manifest, settings.segmentSize);
    });
    if (!going || !work || !(await writeAll(false)) || !(await writeAll(true))) break;
    for (const segment of dropped) await removeFile(segment.path);
    if (!oversized(await view.manifest())) break;
  }
  return written;
}

const ROUNDS = 3;

/**
 * Splits the oversized loaded segments and unlists the emptied ones, in memory.
 * @returns the segments unlisted, whose files go once the manifest is written
 */
function restructure(target: SnapshotTarget, manifest: Manifest, segmentSize: number) {
  const { view } = target;
  const dropped: Segment[] = [];
  // From the last segment down, so that restructuring never shifts an index still ahead.
  for (let index = manifest.entries.length - 1; index >= 0; index--) {
    const segment = view.loadedAt(manifest, index);
    if (!segment) continue;
    if (segment.records.size > segmentSize) {
      const chunks = segment.overflow(segmentSize);
      const created = chunks.map((chunk) => {
        const file = newSegmentFile();
        return { low: chunk.low, file, segment: view.createSegment(file, chunk.records) };
      });
      manifest.insert(
        index + 1,
        created.map(({ low, file }) => ({ low, file })),
      );
      for (const chunk of created) view.remember(chunk.segment);
      for (const chunk of chunks) segment.forget(chunk.records.keys());
    } else if (segment.records.size === 0 && index < manifest.entries.length - 1) {
      manifest.remove(index);
      view.discard(segment);
      if (segment.persisted) dropped.push(segment);
    }
  }
  return dropped;
}

/** Records in the manifest the order fields' bounds of the segment files just written. */
function noteBounds(
  view: PartitionView,
  manifest: Manifest,
  written: Set<string>,
  settings: SnapshotSettings,
): boolean {
  let changed = false;
  for (let index = 0; index < manifest.entries.length; index++) {
    const segment = view.loadedAt(manifest, index);
    if (!segment || segment.dirty || !written.has(segment.path)) continue;
    for (const field of settings.orderFields) {
      if (manifest.setBounds(index, field, segment.boundsOf(field))) changed = true;
    }
  }
  return changed;
}
