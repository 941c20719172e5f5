/**
 * How the Cosmos DB store writes a `Store.batch` so that a crash at any instant leaves all of
 * it or none of it (README.md, "Crash-exact writes"):
 *
 * - ops that share one partition key go as one transactional batch: atomic on Cosmos DB;
 * - otherwise, when every op outside one partition key (the anchor) is a create, the anchor's
 *   ops go as one transactional batch together with an *intent* item that lists those
 *   creates; that batch is the commit. The creates follow, and a create that a crash left
 *   unwritten is written by the recovery of any instance (intents.ts), so the batch is
 *   rolled forward, never left half done;
 * - with conditional ops in two partition keys, it goes in two phases: the first key's ops
 *   with a *prepared* intent, then the second key's with a *marker* that commits it; a
 *   prepared intent without its marker is taken back (intents.ts, undo.ts);
 * - with conditional ops in three or more partition keys (none of the service's), or an
 *   intent too large for an item, it goes op by op with undo: the shape a crash can cut.
 */
import { Buffer } from "node:buffer";
import type {
  Container,
  JSONObject,
  OperationInput,
  OperationResponse,
  PatchOperation,
} from "@azure/cosmos";
import {
  type BatchOp,
  type PatchOp,
  type Store,
  StoreConflictError,
  type Stored,
  type StoreRecord,
} from "formwork/ports";
import { batchOpId, patchApplies } from "formwork/ports/kit";
import {
  collectionField,
  type Item,
  indexesByKey,
  itemIdOf,
  itemOf,
  keyFieldRefused,
  partitionKeyField,
  placeOf,
  storedOf,
  transactionalBatchLimit,
} from "./documents.ts";
import { cosmosError } from "./errors.ts";
import {
  abortIntent,
  type CreateOp,
  type IntentItem,
  intentItemOf,
  markerItemOf,
  removeCreated,
  rollForward,
} from "./intents.ts";

/**
 * Cosmos DB takes an item of at most 2 MB and a transactional batch request of at most 2 MB;
 * these leave room for the item's system fields and the request's framing.
 */
const itemByteLimit = 1_900_000;
const batchByteLimit = 1_800_000;

function bytesOf(item: Item): number {
  return Buffer.byteLength(JSON.stringify(item));
}

function opBytes(op: BatchOp): number {
  return op.op === "delete"
    ? 200
    : Buffer.byteLength(JSON.stringify(op.op === "patch" ? op.set : op.record));
}

/** A store that {@link batchInOrder} runs a batch through: the port's calls, and a patch. */
export interface OpByOpStore extends Store {
  /**
   * Applies the patch `op` alone. @returns the patched record, or `null` when it is missing.
   * @throws {StoreConflictError} `"etag"` when the record does not hold the op's token.
   */
  patch(op: PatchOp): Promise<Stored<StoreRecord> | null>;
}

/** What {@link writeBatch} needs besides the container. */
export interface BatchWriter {
  store: OpByOpStore;
  /** Removes `intent`, its batch all written; not awaited. */
  forget(intent: IntentItem): void;
  now(): number;
}

/**
 * Writes `ops` (checked by `checkBatch`) the crash-exact way this module describes.
 *
 * The first write goes out with no wait before it (no await, no read the ops do not need):
 * S2's turn on a form's counter ends as soon as its batch is handed over, and the next post
 * reads the counter after it (src/domain/quotas/counter-turns.ts), so the write that raises
 * the counter must be on its way first, as the ops' first partition key.
 * @throws {StoreConflictError} when an op's condition fails; nothing is written then
 */
export function writeBatch(
  container: Container,
  ops: readonly BatchOp[],
  writer: BatchWriter,
): Promise<(Stored<StoreRecord> | null)[]> {
  const byKey = indexesByKey(ops);
  // A batch holds an op (the store returns before an empty one): its key is the first.
  const first = byKey.keys().next().value as string;
  if (byKey.size === 1 && ops.length <= transactionalBatchLimit) {
    return transactionalBatch(container, first, ops);
  }
  const conditional = [...byKey].filter(([, indexes]) =>
    indexes.some((index) => (ops[index] as BatchOp).op !== "create"),
  );
  const [anchor, anchorIndexes] = conditional[0] ?? [first, byKey.get(first) as number[]];
  const fits = (indexes: number[]) => indexes.length < transactionalBatchLimit;
  if (conditional.length === 2 && fits(anchorIndexes)) {
    const [commitPk, commitIndexes] = conditional[1] as [string, number[]];
    if (fits(commitIndexes)) {
      return writeTwoPhase(container, ops, [anchor, anchorIndexes], commitPk, writer);
    }
  }
  if (conditional.length > 1 || !fits(anchorIndexes)) return batchInOrder(writer.store, ops);
  return writeWithIntent(container, ops, [anchor, anchorIndexes], writer);
}

/**
 * A batch whose conditional ops share one partition key (`anchor`): its ops there with an
 * intent listing the creates elsewhere, as one transactional batch (the commit), then the
 * creates.
 */
async function writeWithIntent(
  container: Container,
  ops: readonly BatchOp[],
  [anchor, anchorIndexes]: [string, number[]],
  writer: BatchWriter,
): Promise<(Stored<StoreRecord> | null)[]> {
  const given = anchorIndexes.map((index) => ops[index] as BatchOp);
  const anchorOps = needsReads(given) ? await withPrevious(writer.store, given) : given;
  const restIndexes = ops.map((_, index) => index).filter((i) => !anchorIndexes.includes(i));
  const rest = restIndexes.map((index) => ops[index] as CreateOp);
  const intent = intentItemOf(anchor, rest, writer.now());
  const intentBytes = bytesOf(intent);
  if (intentBytes > itemByteLimit) return batchInOrder(writer.store, ops);
  if (intentBytes + anchorOps.reduce((sum, op) => sum + opBytes(op), 0) > batchByteLimit) {
    // Too large for one request with its intent: the intent goes first, alone (two phases
    // with nothing prepared but the intent).
    return writeTwoPhase(container, ops, [anchor, []], anchor, writer);
  }
  const committed = await transactionalBatch(container, anchor, anchorOps, intent);
  const results: (Stored<StoreRecord> | null)[] = new Array(ops.length);
  for (const [n, index] of anchorIndexes.entries()) results[index] = committed[n] ?? null;
  // Committed: from here on the batch is rolled forward, by this call or by recovery.
  const written = await rollForward(container, rest).catch(async (error: unknown) => {
    // A create's id is held by another record: the batch cannot be finished, so its ops
    // are taken back, best effort, the intent with them, before the conflict is thrown.
    if (error instanceof StoreConflictError) {
      await removeCreated(container, rest);
      await undoAnchor(container, anchor, anchorOps, committed, intent.id).catch(() => {});
    }
    throw error;
  });
  for (const [n, index] of restIndexes.entries()) results[index] = written[n] ?? null;
  writer.forget(intent);
  return results;
}

/**
 * A batch with conditional ops in two partition keys: the ops of the first (`prepared`, the
 * ops' first partition key: S2's form) with a prepared intent, as one transactional batch;
 * then the commit, the ops of the second (`commitPk`: a partner customer's quotas) with the
 * intent's marker, as another. A commit that fails (a condition, or an abort marker that
 * recovery wrote first) is taken back with the prepared ops (`abortIntent`); a crash
 * between the two leaves a prepared intent, which recovery takes back. The creates
 * elsewhere follow the commit, as in {@link writeWithIntent}.
 */
async function writeTwoPhase(
  container: Container,
  ops: readonly BatchOp[],
  [preparedPk, preparedIndexes]: [string, number[]],
  commitPk: string,
  writer: BatchWriter,
): Promise<(Stored<StoreRecord> | null)[]> {
  const at = (indexes: number[]) => indexes.map((index) => ops[index] as BatchOp);
  const pkOf = (index: number) =>
    placeOf((ops[index] as BatchOp).collection, (ops[index] as BatchOp).partition).pk;
  // The commit: every op of its partition key. The rest, all creates, follow it.
  const others = ops.map((_, index) => index).filter((i) => !preparedIndexes.includes(i));
  const inCommit = others.filter((index) => pkOf(index) === commitPk);
  const createIndexes = others.filter((index) => pkOf(index) !== commitPk);
  const given = at(preparedIndexes);
  const preparedOps = needsReads(given) ? await withPrevious(writer.store, given) : given;
  // The commit is one transactional batch that nothing takes back once it lands.
  const commitOps = at(inCommit);
  const creates = at(createIndexes) as CreateOp[];
  const now = writer.now();
  const intent = intentItemOf(preparedPk, creates, now, { commitPk, ops: preparedOps });
  const prepared = await transactionalBatch(container, preparedPk, preparedOps, intent);
  let committed: (Stored<StoreRecord> | null)[];
  try {
    const marker = markerItemOf(intent, "committed", now);
    committed = await transactionalBatch(container, commitPk, commitOps, marker);
  } catch (error) {
    if ((await abortIntent(container, intent, writer.now())) === "committed") {
      throw new Error("cosmos store: a commit both failed and landed", { cause: error });
    }
    // The marker's create failed: recovery took the batch back first (a writer that slow
    // lost a race, as to a changed etag).
    if (error instanceof StoreConflictError && failedOpOf(error) === commitOps.length) {
      throw new StoreConflictError("etag", "taken back by recovery", { cause: error });
    }
    throw error;
  }
  const results: (Stored<StoreRecord> | null)[] = new Array(ops.length);
  for (const [n, index] of preparedIndexes.entries()) results[index] = prepared[n] ?? null;
  for (const [n, index] of inCommit.entries()) results[index] = committed[n] ?? null;
  // A create whose id another record holds fails here, the batch applied: the service
  // creates only fresh ids, so it cannot happen to it (writeWithIntent takes it back).
  const written = await rollForward(container, creates);
  for (const [n, index] of createIndexes.entries()) results[index] = written[n] ?? null;
  writer.forget(intent);
  return results;
}

/** Whether an op of `ops` lacks the record it writes over (`previous`), to be read first. */
function needsReads(ops: readonly BatchOp[]): boolean {
  return ops.some((op) => op.op !== "create" && !op.previous);
}

/**
 * `ops` with the record each replace, delete or patch writes over (`previous`), read first
 * where the op does not carry it, so that the batch can be taken back if it does not finish
 * (see {@link undoAnchor}, `abortIntent`). The service's ops carry it: no read then.
 * @throws {StoreConflictError} `"etag"` when a record is missing or fails its op's condition
 */
async function withPrevious(store: Store, ops: BatchOp[]): Promise<BatchOp[]> {
  return Promise.all(
    ops.map(async (op) => {
      if (op.op === "create" || op.previous) return op;
      const current = await store.get(op.collection, op.partition, batchOpId(op));
      const holds =
        current &&
        (op.op === "patch"
          ? patchApplies(op, current.record)
          : op.ifMatch === undefined || op.ifMatch === current.etag);
      if (!holds) throw new StoreConflictError("etag", current ? undefined : "record is missing");
      return { ...op, previous: current.record };
    }),
  );
}

/**
 * Takes back the ops of `ops` that `committed` (their batch's answer, the intent last) wrote
 * in partition key `pk`, and the intent, in one transactional batch conditional on the etags
 * written: a replace, patch or delete is undone from the record its caller read (`previous`),
 * and left when it has none.
 */
async function undoAnchor(
  container: Container,
  pk: string,
  ops: readonly BatchOp[],
  committed: readonly (Stored<StoreRecord> | null)[],
  intentId: string,
): Promise<void> {
  const operations: OperationInput[] = [];
  for (const [index, op] of ops.entries()) {
    const place = placeOf(op.collection, op.partition);
    const written = committed[index];
    const condition = { partitionKey: pk, ifMatch: written?.etag };
    if (op.op === "create") {
      const id = itemIdOf(place.collection, op.record.id);
      operations.push({ operationType: "Delete", id, ...condition } as OperationInput);
    } else if (op.op === "delete") {
      if (op.previous) {
        const resourceBody = itemOf(op.previous, place) as JSONObject & Item;
        operations.push({ operationType: "Create", resourceBody, partitionKey: pk });
      }
    } else if (op.previous) {
      const resourceBody = itemOf(op.previous, place) as JSONObject & Item;
      operations.push({
        operationType: "Replace",
        id: resourceBody.id,
        resourceBody,
        ...condition,
      });
    }
  }
  operations.push({ operationType: "Delete", id: intentId, partitionKey: pk });
  await container.items.batch(operations, pk);
}

/** Which operation of its transactional batch failed a conflict {@link transactionalBatch} threw. */
function failedOpOf(error: StoreConflictError): number | undefined {
  return (error.cause as { failedOp?: number } | undefined)?.failedOp;
}

/** The transactional batch operation that writes `op`. */
function operationOf(op: BatchOp, pk: string): OperationInput {
  // The key on every op as well as on the batch: the stand-in reads it from the op.
  const partitionKey = pk;
  const place = placeOf(op.collection, op.partition);
  if (op.op === "delete") {
    const id = itemIdOf(place.collection, op.id);
    // Cosmos DB takes a condition on any batch op; the SDK's type names it only for some.
    return { operationType: "Delete", id, partitionKey, ifMatch: op.ifMatch } as OperationInput;
  }
  if (op.op === "patch") {
    return {
      operationType: "Patch",
      id: itemIdOf(place.collection, op.id),
      partitionKey,
      resourceBody: { operations: patchOperationsOf(op), condition: patchConditionOf(op) },
    };
  }
  const item = itemOf(op.record, place) as JSONObject & Item;
  if (op.op === "create") return { operationType: "Create", resourceBody: item, partitionKey };
  const ifMatch = op.ifMatch;
  return { operationType: "Replace", id: item.id, resourceBody: item, ifMatch, partitionKey };
}

/** The Cosmos DB patch operations of `op`: its sets, then the token's removal. */
export function patchOperationsOf(op: PatchOp): PatchOperation[] {
  const { field } = op.token;
  const own = [partitionKeyField, collectionField];
  if (own.includes(field) || own.some((name) => Object.hasOwn(op.set, name))) {
    throw keyFieldRefused();
  }
  const operations: PatchOperation[] = Object.entries(op.set).map(([name, set]) => ({
    op: "set",
    path: `/${name}`,
    value: set,
  }));
  operations.push({ op: "remove", path: `/${field}` });
  return operations;
}

/**
 * The SQL condition of the patch `op`: the record holds its token. The field is a plain name
 * and the token lowercase letters, digits and hyphens (checkBatch), so both go in as they
 * are; the tests' stand-in lowercases a condition.
 */
export function patchConditionOf(op: PatchOp): string {
  return `from c where c.${op.token.field} = "${op.token.value}"`;
}

/**
 * Runs `ops` (one partition key, `pk`), and `extra` when given, as one transactional batch:
 * all or nothing, crashes too.
 * @returns per op of `ops`, then for `extra`: the written record and its etag, or `null`
 */
export async function transactionalBatch(
  container: Container,
  pk: string,
  ops: readonly BatchOp[],
  extra?: Item,
): Promise<(Stored<StoreRecord> | null)[]> {
  const operations = ops.map((op) => operationOf(op, pk));
  if (extra) {
    operations.push({
      operationType: "Create",
      resourceBody: extra as JSONObject & Item,
      partitionKey: pk,
    });
  }
  const response = await container.items.batch(operations, pk);
  const results = (response.result ?? []) as OperationResponse[];
  const failedAt = results.findIndex(
    (result) => result.statusCode >= 400 && result.statusCode !== 424,
  );
  if (failedAt >= 0 || results.length !== operations.length) {
    const status = results[failedAt]?.statusCode ?? response.code;
    const failedOp = { cause: { failedOp: failedAt } };
    if (status === 409) throw new StoreConflictError("exists", undefined, failedOp);
    if (status === 404 || status === 412) throw new StoreConflictError("etag", undefined, failedOp);
    throw cosmosError(`batch failed with status ${status}`);
  }
  return results.map((result, index) =>
    (ops[index] as BatchOp | undefined)?.op === "delete"
      ? null
      : storedOf(result.resourceBody as Item),
  );
}

/**
 * Runs `ops` one by one through `store` and, when one fails, undoes the ones applied (in
 * reverse) before rethrowing. Concurrent readers may see part of the batch, and a crash in
 * the middle leaves part of it: only a batch with conditional ops in two or more partition
 * keys goes this way (see the module comment). A replace or delete reads its record first,
 * to check it and to undo it, except the last op, which nothing comes after to fail (its
 * write checks its condition by itself), and an op that carries the record as its caller
 * read it (`previous` with `ifMatch`). An undo is conditional on the etag its op wrote, so
 * it never takes back a later writer's change (that op then stays applied).
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
