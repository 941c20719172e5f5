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
import { brotliCompressSync, brotliDecompressSync, constants } from "node:zlib";
import type { Container, JSONObject, OperationInput, OperationResponse } from "@azure/cosmos";
import { type BatchOp, StoreConflictError, type Stored, type StoreRecord } from "formwork/ports";
import { batchOpId } from "formwork/ports/kit";
import {
  collectionField,
  type Item,
  indexesByKey,
  itemIdOf,
  itemOf,
  partitionKeyField,
  placeOf,
  recordOf,
  storedOf,
  transactionalBatchLimit,
} from "./documents.ts";
import { isItemNotFound, statusOf } from "./errors.ts";
import { sameRecord, undoOperation } from "./undo.ts";

/** A create op of a batch, the only kind an intent carries. */
export type CreateOp = Extract<BatchOp, { op: "create" }>;

/** The collection field of intents: not a name the Store port accepts, so never a record's. */
export const intentCollection = "~intent";

/** The collection field of the markers that say whether a prepared intent committed. */
export const markerCollection = "~marker";

/** An intent as stored. */
export interface IntentItem extends Item {
  /** When it was written, in milliseconds since the epoch (the writer's clock). */
  at: number;
  /**
   * The creates, as JSON, compressed when large ({@link pack}).
   */
  creates: string;
  /**
   * A prepared intent's (batch.ts, two conditional partition keys): the partition key of the
   * commit, which holds its marker once committed, and the ops written with the intent, each
   * carrying the record it wrote over (`previous`), to take them back when it never commits.
   */
  prepared?: { commitPk: string; ops: string };
}

/** A marker: its commit's, or an abort that keeps the commit from ever landing. */
interface MarkerItem extends Item {
  at: number;
  state: "committed" | "aborted";
}

/**
 * The intent item, in partition key `pk`, that commits `creates`; a prepared one (two-phase)
 * also names its commit's partition key and the ops written with it.
 */
export function intentItemOf(
  pk: string,
  creates: readonly CreateOp[],
  at: number,
  prepared?: { commitPk: string; ops: readonly BatchOp[] },
): IntentItem {
  const list = creates.map(({ collection, partition, record }) => ({
    collection,
    partition,
    record,
  }));
  return {
    id: `${intentCollection}:${randomUUID()}`,
    [partitionKeyField]: pk,
    [collectionField]: intentCollection,
    at,
    creates: pack(list),
    ...(prepared ? { prepared: { commitPk: prepared.commitPk, ops: pack(prepared.ops) } } : {}),
  };
}

/** The marker item of `intent` in state `state`, in its commit's partition key. */
export function markerItemOf(intent: IntentItem, state: MarkerItem["state"], at: number): Item {
  return {
    id: markerIdOf(intent),
    [partitionKeyField]: intent.prepared?.commitPk,
    [collectionField]: markerCollection,
    at,
    state,
  };
}

function markerIdOf(intent: IntentItem): string {
  return `${markerCollection}:${intent.id.slice(intent.id.indexOf(":") + 1)}`;
}

/** Below this many bytes of JSON, an intent's lists are stored as they are. */
const compressFrom = 16_384;

/**
 * A list as an intent stores it: its JSON (`j:`), or past {@link compressFrom} bytes that
 * JSON compressed with brotli, in base64 (`b:`). Brotli's window, sized to the JSON, spans
 * whole copies of a submission, which deflate's 32 kB does not: a submission copied into
 * each webhook's delivery is stored about once. Small lists skip it: compressing costs
 * about 50 µs even for 2 kB.
 */
function pack(value: unknown): string {
  const json = JSON.stringify(value);
  if (json.length < compressFrom) return `j:${json}`;
  const window = Math.min(24, Math.max(16, Math.ceil(Math.log2(json.length)) + 1));
  const params = {
    [constants.BROTLI_PARAM_QUALITY]: 4,
    [constants.BROTLI_PARAM_LGWIN]: window,
    [constants.BROTLI_PARAM_SIZE_HINT]: json.length,
  };
  return `b:${brotliCompressSync(json, { params }).toString("base64")}`;
}

function unpack<T>(packed: string): T {
  const body = packed.slice(2);
  const json = packed.startsWith("b:")
    ? brotliDecompressSync(Buffer.from(body, "base64")).toString("utf8")
    : body;
  return JSON.parse(json) as T;
}

function createsOf(intent: IntentItem): CreateOp[] {
  const list = unpack<Omit<CreateOp, "op">[]>(intent.creates);
  return list.map((create) => ({ op: "create", ...create }));
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
  await Promise.all(
    [...indexesByKey(creates)].map(async ([pk, indexes]) => {
      for (let start = 0; start < indexes.length; start += transactionalBatchLimit) {
        const chunk = indexes.slice(start, start + transactionalBatchLimit);
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

/** Removes the finished intent `intent`, and its marker when it has one; gone already is fine. */
export async function removeIntent(container: Container, intent: IntentItem): Promise<void> {
  // The intent first: a commit marker removed while its intent is still there would read,
  // to a recovery that found the intent, as a commit that never came, and be taken back.
  await deleteIfThere(container, intent.id, intent[partitionKeyField] as string);
  const commitPk = intent.prepared?.commitPk;
  if (commitPk !== undefined) await deleteIfThere(container, markerIdOf(intent), commitPk);
}

async function deleteIfThere(container: Container, id: string, pk: string): Promise<void> {
  try {
    await container.item(id, pk).delete();
  } catch (error) {
    if (!isItemNotFound(error)) throw error;
  }
}

/**
 * Takes back a prepared intent that has not committed, and keeps it from ever committing:
 * first an abort marker where its commit would write its marker (a commit that comes after
 * then fails on it, atomically), then its ops taken back from the records as they are now
 * (undo.ts), in one transactional batch with the intent's removal, so that it is taken back
 * once however many instances try. Safe to call from the batch that wrote it and from any
 * number of recoveries at once.
 * @returns `"committed"` when the intent had committed (nothing taken back), else `"aborted"`
 */
export async function abortIntent(
  container: Container,
  intent: IntentItem,
  now: number,
): Promise<"committed" | "aborted"> {
  const commitPk = intent.prepared?.commitPk as string;
  try {
    await container.items.create(markerItemOf(intent, "aborted", now), noGeneratedIds);
  } catch (error) {
    if (statusOf(error) !== 409) throw error;
    const { resource } = await container.item(markerIdOf(intent), commitPk).read<MarkerItem>();
    if (resource?.state === "committed") return "committed";
  }
  const ops = unpack<BatchOp[]>(intent.prepared?.ops ?? "j:[]");
  const pk = intent[partitionKeyField] as string;
  let statuses = "";
  for (let attempt = 0; attempt < 20; attempt++) {
    // A record deleted or changed under the take-back: a short random wait, then again.
    if (attempt > 0)
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 20 * attempt));
    const current = await Promise.all(ops.map((op) => readItem(container, op)));
    const operations: OperationInput[] = [];
    for (const [index, op] of ops.entries()) {
      const undo = undoOperation(op, current[index] as Item | undefined, pk);
      if (undo) operations.push(undo);
    }
    operations.push({ operationType: "Delete", id: intent.id, partitionKey: pk });
    const response = await container.items.batch(operations, pk);
    const results = (response.result ?? []) as OperationResponse[];
    if (results.length === operations.length && results.every((r) => r.statusCode < 300)) {
      return "aborted";
    }
    // Gone: another instance took it back. Else a record changed under the undo: again.
    if (!(await readIntent(container, pk, intent.id))) return "aborted";
    statuses = operations
      .map(
        (op, index) =>
          `${op.operationType} ${"id" in op ? op.id : ""}: ${results[index]?.statusCode}`,
      )
      .join(", ");
  }
  throw new Error(
    `cosmos store: could not take back the unfinished write ${intent.id} (${statuses}); recovery tries again`,
  );
}

async function readItem(container: Container, op: BatchOp): Promise<Item | undefined> {
  const place = placeOf(op.collection, op.partition);
  const id = itemIdOf(place.collection, batchOpId(op));
  return (await container.item(id, place.pk).read<Item>()).resource;
}

async function readIntent(container: Container, pk: string, id: string) {
  return (await container.item(id, pk).read<IntentItem>()).resource;
}

/**
 * Finishes the intents written before `cutoff` (milliseconds since the epoch), at most `limit`
 * of them: a committed one has its creates written, one that never committed is taken back
 * ({@link abortIntent}); then it is removed, with its marker. Markers older than an hour are
 * removed too. Safe to run on many instances at once.
 * @returns how many intents it finished
 */
export async function recoverIntents(
  container: Container,
  cutoff: number,
  now: number,
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
    if (intent.prepared && (await abortIntent(container, intent, now)) === "aborted") {
      finished++;
      continue;
    }
    try {
      await rollForward(container, createsOf(intent));
    } catch (error) {
      // A record of another content holds a create's id: it can never be written. The
      // batch's own call undid what it could (batch.ts); nothing is left to finish.
      if (!(error instanceof StoreConflictError)) throw error;
    }
    await removeIntent(container, intent);
    finished++;
  }
  const markers = await container.items
    .query<Item>(
      {
        query: `SELECT c.id, c.${partitionKeyField} FROM c WHERE c.${collectionField} = @coll AND c.at <= @cutoff`,
        parameters: [
          { name: "@coll", value: markerCollection },
          { name: "@cutoff", value: now - markerLifeMs },
        ],
      },
      { maxItemCount: limit },
    )
    .fetchNext();
  for (const marker of markers.resources) {
    await deleteIfThere(container, marker.id, marker[partitionKeyField] as string);
  }
  return finished;
}

/**
 * How long an abort marker stays: longer than any write of the batch it aborted can still
 * arrive at Cosmos DB (the SDK's timeouts and throttling retries add up to about a minute).
 */
const markerLifeMs = 60 * 60 * 1000;

const noGeneratedIds = { disableAutomaticIdGeneration: true };
