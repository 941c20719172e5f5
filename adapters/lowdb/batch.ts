import type { BatchOp, Stored, StoreRecord } from "formwork/ports";
import { batchOpId, batchOpRecord, checkBatch, checkBatchOp } from "formwork/ports/kit";
import type { Journal } from "./journal.ts";
import type { RecordChange } from "./journal-entries.ts";
import type { Partition } from "./partition.ts";
import type { Entry, Segment } from "./segments.ts";

/**
 * Runs a `Store.batch` over the partitions it names (`partitionOf` gives the one of an op).
 * It queues on every partition's operation chain at once, synchronously, so two batches
 * queue in the same order everywhere and cannot wait for each other; once it holds them
 * all, it checks every op, makes the changes in memory, and appends them to the journal as
 * ONE entry: replay applies all of it or, when the crash tore it, none. A failed journal
 * write undoes every change, as for a single write.
 */
export async function runBatch(
  ops: readonly BatchOp[],
  partitionOf: (op: BatchOp) => Partition,
  journal: Journal,
): Promise<(Stored<StoreRecord> | null)[]> {
  const targets = ops.map(partitionOf);
  checkBatch(ops);
  const held = [...new Set(targets)];
  let written: Promise<void> = Promise.resolve();
  const results = await holdAll(held, async () => {
    // What each op replaced, to put back in reverse order if a later op or the write fails.
    const undo: { segment: Segment; id: string; before: Entry | undefined }[] = [];
    const changes: RecordChange[] = [];
    const results: (Stored<StoreRecord> | null)[] = [];
    const undoAll = () => {
      for (let i = undo.length - 1; i >= 0; i--) {
        const { segment, id, before } = undo[i] as (typeof undo)[number];
        segment.set(id, before);
      }
    };
    try {
      for (let index = 0; index < ops.length; index++) {
        const op = ops[index] as BatchOp;
        const partition = targets[index] as Partition;
        const id = batchOpId(op);
        const segment =
          partition.view.loadedSegmentFor(id) ?? (await partition.view.segmentFor(id));
        const before = segment.records.get(id);
        checkBatchOp(op, before);
        // Literals without a spread: `{ ...place, … }` costs a slow copy on every op.
        const { collection: c, name: p } = partition;
        if (op.op === "delete") {
          segment.remove(id);
          changes.push({ c, p, o: "del", i: id });
          results.push(null);
        } else {
          const stored = segment.put(batchOpRecord(op, before));
          changes.push({ c, p, o: "put", r: stored.record, e: stored.etag });
          results.push(stored);
        }
        undo.push({ segment, id, before });
      }
    } catch (error) {
      undoAll();
      throw error;
    }
    written = journal.append({ o: "batch", b: changes }, undoAll);
    for (const partition of held) partition.follow(written);
    return results;
  });
  await written;
  return results;
}

/** Runs `body` while holding the operation chain of every one of `partitions`. */
function holdAll<T>(partitions: Partition[], body: () => Promise<T>): Promise<T> {
  let release = () => {};
  const released = new Promise<void>((resolve) => {
    release = resolve;
  });
  // With nothing queued on any of them, each is held as its `run` is called: `body` starts
  // at once, without a promise per partition to wait on (hot path).
  if (partitions.every((partition) => !partition.busy)) {
    for (const partition of partitions) void partition.run(() => released);
    return body().finally(release);
  }
  const held = partitions.map(
    (partition) =>
      new Promise<void>((resolve) => {
        void partition.run(() => {
          resolve();
          return released;
        });
      }),
  );
  return Promise.all(held)
    .then(body)
    .finally(() => release());
}
