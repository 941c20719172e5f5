/**
 * Taking back a write of a prepared intent that never committed (intents.ts), from the
 * record as it is now: other writers may have written it since, building on the write
 * (a quota counter raised again by the next post). So the write is not put back as a whole
 * record: its own changes are taken out of the record as it is now (a three-way undo), as
 * a patch that increments each count by the write's difference, negated.
 */
import type { JSONObject, OperationInput, PatchOperation } from "@azure/cosmos";
import type { BatchOp, StoreRecord } from "formwork/ports";
import { batchOpRecord } from "formwork/ports/kit";
import { type Item, itemOf, placeOf, recordOf } from "./documents.ts";

/**
 * The transactional batch operation that takes `op` back from `current` (its item now, or
 * `undefined` when there is none), in partition key `pk`, conditional on the item's etag;
 * `undefined` when there is nothing to take back. `op` carries `previous` (batch.ts), and it
 * was written: its intent, written with it, is still there. So a record that reads as it did
 * before the write is not left alone: a later writer took something off it (a quota given
 * back), and the write's own change still comes off.
 */
export function undoOperation(
  op: BatchOp,
  current: Item | undefined,
  pk: string,
): OperationInput | undefined {
  const place = placeOf(op.collection, op.partition);
  if (op.op === "delete") {
    if (current || !op.previous) return undefined;
    const resourceBody = itemOf(op.previous, place) as JSONObject & Item;
    return { operationType: "Create", resourceBody, partitionKey: pk };
  }
  if (!current) return undefined;
  const now = recordOf(current);
  const ifMatch = current._etag;
  const previous = op.op === "create" ? undefined : op.previous;
  const written =
    op.op === "create"
      ? op.record
      : batchOpRecord(op, { record: previous as StoreRecord, etag: "" });
  if (op.op === "create" && sameRecord(now, written)) {
    return { operationType: "Delete", id: current.id, partitionKey: pk, ifMatch } as OperationInput;
  }
  const operations: PatchOperation[] = [];
  undoPatch(now, written, previous ?? { id: now.id }, "", operations);
  if (operations.length === 0) return undefined;
  if (operations.length <= patchLimit) {
    // No condition: an increment takes the write's own delta off whatever others wrote since,
    // so the take-back never loses a race with the writers of a busy counter.
    return {
      operationType: "Patch",
      id: current.id,
      partitionKey: pk,
      resourceBody: { operations },
    };
  }
  const undone = withoutChanges(now, written, previous ?? { id: now.id }) as StoreRecord;
  const resourceBody = itemOf(undone, place) as JSONObject & Item;
  return { operationType: "Replace", id: current.id, resourceBody, ifMatch, partitionKey: pk };
}

/** Cosmos DB takes 10 operations in one patch. */
const patchLimit = 10;

/**
 * The patch operations that take out of `now` the changes that turned `before` into `after`
 * (the same rules as {@link withoutChanges}): a number changed by the write is incremented
 * by the write's difference, negated; another value the write changed goes back to
 * `before`'s (removed when it had none) while `now` still holds the write's.
 */
function undoPatch(
  now: unknown,
  after: unknown,
  before: unknown,
  path: string,
  out: PatchOperation[],
): void {
  if (sameRecord(after, before)) return;
  if (typeof after === "number" && (typeof before === "number" || before === undefined)) {
    if (typeof now === "number") out.push({ op: "incr", path, value: (before ?? 0) - after });
    return;
  }
  if (isObject(now) && isObject(after) && (isObject(before) || before === undefined)) {
    const was = (before ?? {}) as Record<string, unknown>;
    for (const key of new Set([...Object.keys(after), ...Object.keys(was)])) {
      if (path === "" && key === "id") continue;
      undoPatch(now[key], after[key], was[key], `${path}/${pointerOf(key)}`, out);
    }
    return;
  }
  if (!sameRecord(now, after)) return;
  out.push(before === undefined ? { op: "remove", path } : { op: "set", path, value: before });
}

/** A key as a JSON pointer segment. */
function pointerOf(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/**
 * `now` without the changes that turned `before` into `after`: a number changed by the write
 * gets the difference taken off (a count another writer raised since keeps its raise); any
 * other value the write changed goes back to `before`'s while `now` still holds the write's
 * (else a later writer's value stays); objects are compared field by field.
 */
export function withoutChanges(now: unknown, after: unknown, before: unknown): unknown {
  if (sameRecord(after, before)) return now;
  if (typeof now === "number" && typeof after === "number") {
    // A number the write added, untouched since, goes with it.
    if (before === undefined && now === after) return undefined;
    return now - after + (typeof before === "number" ? before : 0);
  }
  if (isObject(now) && isObject(after) && (isObject(before) || before === undefined)) {
    const result: Record<string, unknown> = { ...now };
    const was = (before ?? {}) as Record<string, unknown>;
    for (const key of new Set([...Object.keys(after), ...Object.keys(was)])) {
      const value = withoutChanges(now[key], after[key], was[key]);
      if (value === undefined) delete result[key];
      else result[key] = value;
    }
    return result;
  }
  return sameRecord(now, after) ? before : now;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Whether two JSON values are the same (key order aside). */
export function sameRecord(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) =>
    sameRecord((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
