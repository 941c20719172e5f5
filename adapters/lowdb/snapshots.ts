import { basename, join } from "node:path";
import { newSegmentFile } from "./file-names.ts";
import { createFolder, removeFile } from "./folders.ts";
import type { Manifest } from "./manifest.ts";
import type { PartitionView } from "./partition-view.ts";
import { Segment } from "./segments.ts";

/** What snapshot writing needs to know of the store's settings. */
export interface SnapshotSettings {
  segmentSize: number;
  orderFields: readonly string[];
}

/**
 * Writes every dirty segment of a partition to its file, splitting those grown past the
 * segment size and dropping emptied ones, then notes the order fields' bounds of the files
 * written in the manifest. Restructuring keeps a crash-safe order:
 * - split: the new upper segments, then the manifest, then the trimmed lower segment. A
 *   crash before the manifest leaves unlisted files; after it, the lower file still holds
 *   copies of the moved records, which `Segment.load` ignores as outside its range.
 * - an emptied segment (never the last one): the manifest, then the unlink.
 * A failure leaves memory as it was, with the segments still dirty. Run it on the
 * partition's operation chain.
 * @returns the files written
 */
export async function writeSnapshots(
  folder: string,
  view: PartitionView,
  settings: SnapshotSettings,
): Promise<string[]> {
  await createFolder(folder);
  const manifest = await view.manifest();
  const written: string[] = [];
  // From the last segment down, so that restructuring never shifts an index still ahead.
  for (let index = manifest.entries.length - 1; index >= 0; index--) {
    const segment = view.loadedAt(manifest, index);
    if (!segment?.dirty) continue;
    if (segment.records.size > settings.segmentSize) {
      written.push(...(await split(folder, view, manifest, index, segment, settings)));
    } else if (segment.records.size === 0 && index < manifest.entries.length - 1) {
      written.push(await drop(view, manifest, index, segment));
    } else {
      await segment.write();
      written.push(segment.path);
    }
  }
  if (noteBounds(view, manifest, new Set(written), settings)) {
    written.push(await manifest.write());
  }
  return written;
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

async function split(
  folder: string,
  view: PartitionView,
  manifest: Manifest,
  index: number,
  segment: Segment,
  settings: SnapshotSettings,
): Promise<string[]> {
  const chunks = segment.overflow(settings.segmentSize);
  const created = chunks.map((chunk) =>
    Segment.create(join(folder, newSegmentFile()), chunk.records),
  );
  for (const upper of created) await upper.write();
  const manifestPath = await rewriteManifest(manifest, () =>
    manifest.insert(
      index + 1,
      chunks.map((chunk, k) => ({ low: chunk.low, file: basename((created[k] as Segment).path) })),
    ),
  );
  for (const upper of created) view.remember(upper);
  for (const chunk of chunks) segment.forget(chunk.records.keys());
  await segment.write();
  return [...created.map((upper) => upper.path), manifestPath, segment.path];
}

async function drop(
  view: PartitionView,
  manifest: Manifest,
  index: number,
  segment: Segment,
): Promise<string> {
  const manifestPath = await rewriteManifest(manifest, () => manifest.remove(index));
  view.discard(segment);
  await removeFile(segment.path);
  return manifestPath;
}

/** Applies `change` to the manifest and writes it; takes the change back if that fails. */
async function rewriteManifest(manifest: Manifest, change: () => void): Promise<string> {
  const saved = manifest.save();
  change();
  try {
    return await manifest.write();
  } catch (error) {
    manifest.restore(saved);
    throw error;
  }
}
