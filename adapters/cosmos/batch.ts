import type { Container, JSONObject, OperationInput, OperationResponse } from "@azure/cosmos";
import {
  type BatchOp,
  batchOpId,
  type PatchOp,
  patchApplies,
  type Store,
  StoreConflictError,
  type Stored,
  type StoreRecord,
} from "formwork/ports";
import { type Item, itemIdOf, itemOf, partitionKeyOf, storedOf } from "./documents.ts";
import { cosmosError } from "./errors.ts";

/** The most operations Cosmos DB takes in one transactional batch. */
export const transactionalBatchLimit = 100;

/**
 * Whether `ops` can go as one Cosmos DB transactional batch: one partition key (so one
 * logical partition of the one container), at most {@link transactionalBatchLimit} ops,
 * no conditional delete (the SDK's batch delete takes no `ifMatch`) and no patch (the
 * tests' stand-in takes no patch in a batch, so that path could not be tested here).
 */
export function sharesPartitionKey(ops: readonly BatchOp[]): boolean {
  const keys = new Set(ops.map((op) => partitionKeyOf(op.collection, op.partition)));
  const unbatched = ops.some(
    (op) => op.op === "patch" || (op.op === "delete" && op.ifMatch !== undefined),
  );
  return keys.size === 1 && ops.length <= transactionalBatchLimit && !unbatched;
}

/** A store that {@link batchInOrder} runs a batch through: the port's calls, and a patch. */
export interface OpByOpStore extends Store {
  /**
   * Applies the patch `op` alone. @returns the patched record, or `null` when it is missing.
   * @throws {StoreConflictError} `"etag"` when the record does not hold the op's token.
   */
  patch(op: PatchOp): Promise<Stored<StoreRecord> | null>;
}

/** Runs `ops` (one partition key) as one transactional batch: all or nothing, crashes too. */
export async function transactionalBatch(
  container: Container,
  ops: readonly BatchOp[],
): Promise<(Stored<StoreRecord> | null)[]> {
  const first = ops[0] as BatchOp;
  const pk = partitionKeyOf(first.collection, first.partition);
  const operations: OperationInput[] = ops.map((op): OperationInput => {
    // The key on every op as well as on the batch: the stand-in reads it from the op.
    const partitionKey = pk;
    if (op.op === "delete") return { operationType: "Delete", id: itemIdOf(op.id), partitionKey };
    if (op.op === "patch") throw new TypeError("a patch goes op by op (sharesPartitionKey)");
    const item = itemOf(op.record, pk) as JSONObject & Item;
    if (op.op === "create") return { operationType: "Create", resourceBody: item, partitionKey };
    const ifMatch = op.ifMatch;
    return { operationType: "Replace", id: item.id, resourceBody: item, ifMatch, partitionKey };
  });
  const response = await container.items.batch(operations, pk);
  const results = (response.result ?? []) as OperationResponse[];
  const failed = results.find((result) => result.statusCode >= 400 && result.statusCode !== 424);
  if (failed || results.length !== ops.length) {
    const status = failed?.statusCode ?? response.code;
    if (status === 409) throw new StoreConflictError("exists");
    if (status === 404 || status === 412) throw new StoreConflictError("etag");
    throw cosmosError(`batch failed with status ${status}`);
  }
  return results.map((result, index) =>
    (ops[index] as BatchOp).op === "delete" ? null : storedOf(result.resourceBody as Item),
  );
}

/**
 * Runs `ops` one by one through `store` and, when one fails, undoes the ones applied (in
 * reverse) before rethrowing. Concurrent readers may see part of the batch, and a crash in
 * the middle leaves part of it: the contract says so for Cosmos DB across partitions. A
 * replace or delete reads its record first, to check it and to undo it, except the last
 * op, which nothing comes after to fail (its write checks its condition by itself), and an
 * op that carries the record as its caller read it (`previous` with `ifMatch`). An
 * undo is conditional on the etag its op wrote, so it never takes back a later writer's
 * change (that op then stays applied).
 */
export async function batchInOrder(
  store: OpByOpStore,
  ops: readonly BatchOp[],
): Promise<(Stored<StoreRecord> | null)[]> {
  const undo: (() => Promise<unknown>)[] = [];
  const results: (Stored<StoreRecord> | null)[] = [];
  try {
    for (const [index, op] of ops.entries()) {
      const { collection, partition } = op;
      if (op.op === "create") {
        const created = await store.create(collection, partition, op.record);
        const ifMatch = { ifMatch: created.etag };
        undo.push(() => store.delete(collection, partition, op.record.id, ifMatch));
        results.push(created);
        continue;
      }
      if (op.op === "patch") {
        results.push(await patchInOrder(store, op, index < ops.length - 1, undo));
        continue;
      }
      let ifMatch = op.ifMatch;
      let before: Stored<StoreRecord> | null = null;
      if (op.previous && ifMatch !== undefined) {
        // The caller read it with this etag: the write below checks that it still holds.
        before = { record: op.previous, etag: ifMatch };
      } else if (index < ops.length - 1) {
        before = await store.get(collection, partition, batchOpId(op));
        if (!before || (ifMatch !== undefined && ifMatch !== before.etag)) {
          throw new StoreConflictError("etag", before ? undefined : "record is missing");
        }
        ifMatch = before.etag;
      }
      const old = before?.record;
      if (op.op === "replace") {
        const replaced = await store.replace(collection, partition, op.record, { ifMatch });
        if (!replaced) throw new StoreConflictError("etag", "record is missing");
        // Undone only while it is still this write: a later writer's change is not lost.
        if (old) {
          undo.push(() => store.replace(collection, partition, old, { ifMatch: replaced.etag }));
        }
        results.push(replaced);
      } else {
        if (!(await store.delete(collection, partition, op.id, { ifMatch }))) {
          throw new StoreConflictError("etag", "record is missing");
        }
        if (old) undo.push(() => store.create(collection, partition, old));
        results.push(null);
      }
    }
  } catch (error) {
    // Best effort: an undo that fails too leaves that op applied, and the first error counts.
    for (let i = undo.length - 1; i >= 0; i--) {
      await (undo[i] as () => Promise<unknown>)().catch(() => {});
    }
    throw error;
  }
  return results;
}

/**
 * The patch `op` of {@link batchInOrder}, with its undo pushed on `undo`: the record it
 * carries (`previous`), or else, when a later op may fail (`undoable`), the record read
 * first. The undo is conditional on the etag the patch wrote, as a replace's.
 */
async function patchInOrder(
  store: OpByOpStore,
  op: PatchOp,
  undoable: boolean,
  undo: (() => Promise<unknown>)[],
): Promise<Stored<StoreRecord>> {
  const { collection, partition } = op;
  let old = op.previous;
  if (!old && undoable) {
    const before = await store.get(collection, partition, op.id);
    if (!before || !patchApplies(op, before.record)) {
      throw new StoreConflictError("etag", before ? undefined : "record is missing");
    }
    old = before.record;
  }
  const patched = await store.patch(op);
  if (!patched) throw new StoreConflictError("etag", "record is missing");
  if (old) {
    const back = old;
    undo.push(() => store.replace(collection, partition, back, { ifMatch: patched.etag }));
  }
  return patched;
}
