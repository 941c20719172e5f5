/**
 * How a record becomes a Cosmos DB item and back: the partition key field, the id encoding
 * and the system fields that never reach the caller.
 */
import { Buffer } from "node:buffer";
import type { Stored, StoreRecord } from "formwork/ports";
import { cosmosError } from "./errors.ts";

/**
 * The item field holding the partition key value: the Store partition itself. Every
 * collection's records of one partition (a form's counter, submissions and attachments, all
 * partitioned by the form id) share one logical partition, so that a write of several of them
 * is one transactional batch: atomic, crashes included (README.md, "Crash-exact writes").
 */
export const partitionKeyField = "pk";

/** The item field naming the record's collection; ids are unique per collection in it. */
export const collectionField = "coll";

/** Fields Cosmos DB adds to every item, and ours, removed from what the store returns. */
const bookkeeping = [
  "_rid",
  "_self",
  "_etag",
  "_attachments",
  "_ts",
  "_lsn",
  partitionKeyField,
  collectionField,
];

/** An item as stored: the record's fields, its encoded id and the partition key. */
export type Item = Record<string, unknown> & { id: string; _etag?: string };

// Cosmos DB refuses `/`, `\`, `?` and `#` in ids and an empty id; `%` and a trailing space
// are kept out too, since gateways and tools have been known to mangle them.
const refused = /[/\\?#%]/;
const encodedPrefix = "~b64~";

/** Where one (collection, partition) pair of the Store port lives in the container. */
export interface Place {
  /** The partition key value: the partition. */
  pk: string;
  /** The collection, which the item's id and {@link collectionField} carry. */
  collection: string;
}

/**
 * The place of one (collection, partition) pair.
 * @throws {TypeError} for a collection name other than letters, digits, `_` and `-`
 */
export function placeOf(collection: string, partition: string): Place {
  if (!/^[\w-]+$/.test(collection)) {
    throw new TypeError(`cosmos store: invalid collection name ${JSON.stringify(collection)}`);
  }
  return { pk: partition, collection };
}

/**
 * The Cosmos DB id of a record id of `collection`: the collection, `:`, and the id itself or,
 * when it holds a character Cosmos DB refuses (e-mail addresses may), `~b64~` and its
 * base64url form. The collection keeps the ids of two collections in one partition apart.
 */
export function itemIdOf(collection: string, id: string): string {
  const encoded =
    id === "" || refused.test(id) || id.endsWith(" ") || id.startsWith(encodedPrefix)
      ? encodedPrefix + Buffer.from(id, "utf8").toString("base64url")
      : id;
  return `${collection}:${encoded}`;
}

function recordIdOf(itemId: string): string {
  const id = itemId.slice(itemId.indexOf(":") + 1);
  return id.startsWith(encodedPrefix)
    ? Buffer.from(id.slice(encodedPrefix.length), "base64url").toString("utf8")
    : id;
}

/**
 * The item that stores `record` at `place`.
 * @throws {TypeError} when the record has a field of the item's own (`pk`, `coll`)
 */
export function itemOf(record: StoreRecord, place: Place): Item {
  if (Object.hasOwn(record, partitionKeyField) || Object.hasOwn(record, collectionField)) {
    throw keyFieldRefused();
  }
  return {
    ...record,
    id: itemIdOf(place.collection, record.id),
    [partitionKeyField]: place.pk,
    [collectionField]: place.collection,
  };
}

/** The error for a record, or a patch, that names a field of the item's own (`pk`, `coll`). */
export function keyFieldRefused(): TypeError {
  return new TypeError(
    `cosmos store: records may not have a field named ${partitionKeyField} or ${collectionField}`,
  );
}

/** The most operations Cosmos DB takes in one transactional batch. */
export const transactionalBatchLimit = 100;

/**
 * The indexes of `ops` by the partition key each one's place has, keys in the order they
 * first appear (a batch's first op's key first).
 */
export function indexesByKey(
  ops: readonly { collection: string; partition: string }[],
): Map<string, number[]> {
  const byKey = new Map<string, number[]>();
  for (const [index, op] of ops.entries()) {
    const { pk } = placeOf(op.collection, op.partition);
    const indexes = byKey.get(pk);
    if (indexes) indexes.push(index);
    else byKey.set(pk, [index]);
  }
  return byKey;
}

/** The record an item stores, without the bookkeeping fields. */
export function recordOf<T extends StoreRecord>(item: Item): T {
  const record: Record<string, unknown> = { ...item, id: recordIdOf(item.id) };
  for (const field of bookkeeping) delete record[field];
  return record as T;
}

/** The record an item stores with its etag, as the Store port answers it. */
export function storedOf<T extends StoreRecord>(item: Item | undefined): Stored<T> {
  if (!item || typeof item._etag !== "string") {
    throw cosmosError("the response carried no item with an etag");
  }
  return { record: recordOf<T>(item), etag: item._etag };
}
