/**
 * What every store's `batch` checks and writes, op by op, so that all stores agree on the
 * meaning of a {@link BatchOp}: which record an op names, whether its condition holds, what
 * it leaves stored, and the shape a whole batch must have (see `Store.batch` in store.ts).
 */
import {
  type BatchOp,
  type PatchOp,
  StoreConflictError,
  type Stored,
  type StoreRecord,
} from "./store.ts";

/** The id of the record a batch op writes. */
export function batchOpId(op: BatchOp): string {
  return op.op === "delete" || op.op === "patch" ? op.id : op.record.id;
}

/** Whether `record` holds the token of the patch `op`. */
export function patchApplies(op: PatchOp, record: StoreRecord): boolean {
  return (record as unknown as Record<string, unknown>)[op.token.field] === op.token.value;
}

/** `record` as the patch `op` leaves it (a new object): `set` applied, the token removed. */
function patchedRecord(op: PatchOp, record: StoreRecord): StoreRecord {
  const next: Record<string, unknown> = { ...record, ...op.set };
  delete next[op.token.field];
  return next as unknown as StoreRecord;
}

/**
 * Checks a batch op against the record it writes as stored now (`current`, `undefined` when
 * there is none), as a store's batch does before it writes anything: a create needs its id
 * free; a replace, delete or patch needs the record, with the etag of its `ifMatch` when it
 * names one, or the patch's token.
 * @throws {StoreConflictError} `"exists"` or `"etag"`
 */
export function checkBatchOp(op: BatchOp, current: Stored<StoreRecord> | undefined): void {
  if (op.op === "create") {
    if (current) throw new StoreConflictError("exists");
    return;
  }
  if (!current) throw new StoreConflictError("etag", "record is missing");
  const holds =
    op.op === "patch"
      ? patchApplies(op, current.record)
      : op.ifMatch === undefined || op.ifMatch === current.etag;
  if (!holds) throw new StoreConflictError("etag");
}

/**
 * The record a create, replace or patch op writes, over `current`, the one stored (as
 * {@link checkBatchOp} passed it): the op's own, or the stored one as a patch leaves it.
 */
export function batchOpRecord(
  op: Exclude<BatchOp, { op: "delete" }>,
  current: Stored<StoreRecord> | undefined,
): StoreRecord {
  return op.op === "patch" ? patchedRecord(op, (current as Stored<StoreRecord>).record) : op.record;
}

const patchField = /^[A-Za-z_][A-Za-z0-9_]*$/;
const patchToken = /^[0-9a-z-]+$/;

/** @throws {TypeError} when a field or the token of `op` is not one a patch takes. */
function checkPatch(op: PatchOp): void {
  const { field, value } = op.token;
  const fields = [field, ...Object.keys(op.set)];
  if (fields.some((name) => name === "id" || !patchField.test(name)) || field in op.set) {
    throw new TypeError("a patch sets plain top-level fields other than id and its token's");
  }
  // Cosmos DB takes 10 operations in one patch: the sets and the token's removal.
  if (fields.length > 10) throw new TypeError("a patch sets at most 9 fields");
  if (!patchToken.test(value)) {
    throw new TypeError("a patch's token is lowercase letters, digits and hyphens");
  }
}

/**
 * Checks the shape a batch must have: at most one op per record.
 * @throws {TypeError} when two ops write the same record
 */
export function checkBatch(ops: readonly BatchOp[]): void {
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i] as BatchOp;
    if (op.op === "patch") checkPatch(op);
  }
  // The batches of the request path hold a few ops: comparing pairs beats building keys.
  if (ops.length <= 16) {
    for (let i = 1; i < ops.length; i++) {
      for (let j = 0; j < i; j++) {
        if (sameRecord(ops[i] as BatchOp, ops[j] as BatchOp)) {
          throw new TypeError("a batch writes each record at most once");
        }
      }
    }
    return;
  }
  const seen = new Set<string>();
  for (const op of ops) {
    const key = JSON.stringify([op.collection, op.partition, batchOpId(op)]);
    if (seen.has(key)) throw new TypeError("a batch writes each record at most once");
    seen.add(key);
  }
}

function sameRecord(a: BatchOp, b: BatchOp): boolean {
  return (
    a.collection === b.collection && a.partition === b.partition && batchOpId(a) === batchOpId(b)
  );
}
