/**
 * Intents: how a batch that spans partition keys is finished after a crash (README.md,
 * "Crash-exact writes"). An intent is an item written in the same transactional batch as the
 * batch's conditional ops (its anchor partition key); it lists the creates the batch makes in
 * other partition keys. Once it is written the batch is committed: its creates are written
 * by the call that made it, and whatever a crash left unwritten by the recovery that any
 * instance runs in the background, which writes them and then removes the intent.
 *
 * Writing a create again is harmless: a create whose item is already there with the same
 * record counts as written. So the call and any number of recoveries may finish one intent at
 * once. An intent is found by one query across partition keys, on the collection field and
 * its time, which recovery runs every few seconds and which no request waits for.
 */
import { randomUUID } from "node:crypto";
import { deflateRawSync, inflateRawSync } from "node:zlib";
import type { Container, JSONObject, OperationInput, OperationResponse } from "@azure/cosmos";
import { type BatchOp, StoreConflictError, type Stored, type StoreRecord } from "formwork/ports";
import {
  collectionField,
  type Item,
  itemOf,
  partitionKeyField,
  placeOf,
  recordOf,
  storedOf,
} from "./documents.ts";
import { isItemNotFound, statusOf } from "./errors.ts";

/** A create op of a batch, the only kind an intent carries. */
export type CreateOp = Extract<BatchOp, { op: "create" }>;

/** The collection field of intents: not a name the Store port accepts, so never a record's. */
export const intentCollection = "~intent";

/** An intent as stored. */
interface IntentItem extends Item {
  /** When it was written, in milliseconds since the epoch (the writer's clock). */
  at: number;
  /** The creates, as JSON, deflated and in base64: one copy of a submission per webhook compresses well. */
  creates: string;
}

/** The intent item that commits `creates` in partition key `pk`. */
export function intentItemOf(pk: string, creates: readonly CreateOp[], at: number): Item {
  const list = creates.map(({ collection, partition, record }) => ({
    collection,
    partition,
    record,
  }));
  const packed = deflateRawSync(JSON.stringify(list)).toString("base64");
  return {
    id: `${intentCollection}:${randomUUID()}`,
    [partitionKeyField]: pk,
    [collectionField]: intentCollection,
    at,
    creates: packed,
  };
}

function createsOf(intent: IntentItem): CreateOp[] {
  const list = JSON.parse(inflateRawSync(Buffer.from(intent.creates, "base64")).toString("utf8"));
  return (list as Omit<CreateOp, "op">[]).map((create) => ({ op: "create", ...create }));
}

/**
 * Writes `creates`, each partition key's as transactional batches of up to 100, and answers
 * each with its record and etag. A create whose item exists with the same record is taken as
 * written (by an earlier attempt or a recovery).
 * @throws {StoreConflictError} `"exists"` when an item with a create's id holds another record
 */
export async function rollForward(
  container: Container,
  creates: readonly CreateOp[],
): Promise<Stored<StoreRecord>[]> {
  const results: Stored<StoreRecord>[] = new Array(creates.length);
  const byKey = new Map<string, number[]>();
  for (const [index, op] of creates.entries()) {
    const pk = placeOf(op.collection, op.partition).pk;
    const indexes = byKey.get(pk);
    if (indexes) indexes.push(index);
    else byKey.set(pk, [index]);
  }
  await Promise.all(
    [...byKey].map(async ([pk, indexes]) => {
      for (let start = 0; start < indexes.length; start += 100) {
        const chunk = indexes.slice(start, start + 100);
        const items = chunk.map((index) => itemOfCreate(creates[index] as CreateOp));
        const written = await createAll(container, pk, items);
        for (const [n, index] of chunk.entries())
          results[index] = written[n] as Stored<StoreRecord>;
      }
    }),
  );
  return results;
}

function itemOfCreate(op: CreateOp): Item {
  return itemOf(op.record, placeOf(op.collection, op.partition));
}

/** Creates `items` (one partition key) in one transactional batch, or one by one if one is there. */
async function createAll(
  container: Container,
  pk: string,
  items: Item[],
): Promise<Stored<StoreRecord>[]> {
  const operations: OperationInput[] = items.map((item) => ({
    operationType: "Create",
    resourceBody: item as JSONObject & Item,
    partitionKey: pk,
  }));
  const response = await container.items.batch(operations, pk);
  const results = (response.result ?? []) as OperationResponse[];
  if (results.length === items.length && results.every((result) => result.statusCode < 300)) {
    return results.map((result) => storedOf(result.resourceBody as Item));
  }
  const failed = results.find((result) => result.statusCode >= 400 && result.statusCode !== 424);
  if (failed && failed.statusCode !== 409) {
    throw Object.assign(new Error(`batch failed with status ${failed.statusCode}`), {
      code: failed.statusCode,
    });
  }
  // Some are there already: an earlier attempt, or another instance's recovery, wrote them.
  return Promise.all(items.map((item) => createOne(container, pk, item)));
}

async function createOne(
  container: Container,
  pk: string,
  item: Item,
): Promise<Stored<StoreRecord>> {
  try {
    const created = await container.items.create(item, { disableAutomaticIdGeneration: true });
    return storedOf(created.resource);
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
  }
  const { resource } = await container.item(item.id, pk).read<Item>();
  if (resource && sameRecord(recordOf(resource), recordOf(item))) return storedOf(resource);
  throw new StoreConflictError("exists");
}

/** Whether two records are the same JSON (records are JSON data; key order may differ). */
function sameRecord(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) =>
    sameRecord((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}

/**
 * Takes back the creates of `creates` that hold their op's record (after a create failed on
 * an id held by another record): best effort, each conditional on the etag it has.
 */
export async function removeCreated(container: Container, creates: readonly CreateOp[]) {
  for (const op of creates) {
    const item = itemOfCreate(op);
    const pk = item[partitionKeyField] as string;
    const found = await container
      .item(item.id, pk)
      .read<Item>()
      .catch(() => undefined);
    const resource = found?.resource;
    if (!resource || !sameRecord(recordOf(resource), op.record)) continue;
    const condition = { accessCondition: { type: "IfMatch", condition: resource._etag as string } };
    await container
      .item(item.id, pk)
      .delete(condition)
      .catch(() => {});
  }
}

/** Removes the intent `id` of partition key `pk` (finished); gone already is fine. */
export async function removeIntent(container: Container, pk: string, id: string): Promise<void> {
  try {
    await container.item(id, pk).delete();
  } catch (error) {
    if (!isItemNotFound(error)) throw error;
  }
}

/**
 * Finishes the intents written before `cutoff` (milliseconds since the epoch), at most `limit`
 * of them: writes their creates and removes them. Safe to run on many instances at once.
 * @returns how many intents it finished
 */
export async function recoverIntents(
  container: Container,
  cutoff: number,
  limit = 100,
): Promise<number> {
  const spec = {
    query: `SELECT * FROM c WHERE c.${collectionField} = @coll AND c.at <= @cutoff`,
    parameters: [
      { name: "@coll", value: intentCollection },
      { name: "@cutoff", value: cutoff },
    ],
  };
  // The one query across partition keys the store makes: the SDK asks for its plan first.
  const page = await container.items.query<IntentItem>(spec, { maxItemCount: limit }).fetchNext();
  let finished = 0;
  for (const intent of page.resources) {
    try {
      await rollForward(container, createsOf(intent));
    } catch (error) {
      // A record of another content holds a create's id: it can never be written. The
      // batch's own call undid what it could (batch.ts); nothing is left to finish.
      if (!(error instanceof StoreConflictError)) throw error;
    }
    const pk = intent[partitionKeyField] as string;
    await container
      .item(intent.id, pk)
      .delete()
      .catch((error: unknown) => {
        if (!isItemNotFound(error)) throw error;
      });
    finished++;
  }
  return finished;
}
