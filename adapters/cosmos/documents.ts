/**
 * How a record becomes a Cosmos DB item and back: the partition key field, the id encoding
 * and the system fields that never reach the caller.
 */
import { Buffer } from "node:buffer";
import type { Stored, StoreRecord } from "formwork/ports";
import { cosmosError } from "./errors.ts";

/** The item field holding the partition key value: `<collection>/<partition>`. */
export const partitionKeyField = "pk";

/** Fields Cosmos DB adds to every item, and ours, removed from what the store returns. */
const bookkeeping = ["_rid", "_self", "_etag", "_attachments", "_ts", "_lsn", partitionKeyField];

/** An item as stored: the record's fields, its encoded id and the partition key. */
export type Item = Record<string, unknown> & { id: string; _etag?: string };

// Cosmos DB refuses `/`, `\`, `?` and `#` in ids and an empty id; `%` and a trailing space
// are kept out too, since gateways and tools have been known to mangle them.
const refused = /[/\\?#%]/;
const encodedPrefix = "~b64~";

/**
 * The partition key value of one (collection, partition) pair. Collection names are plain
 * words, so the first `/` separates the two unambiguously.
 * @throws {TypeError} for a collection name other than letters, digits, `_` and `-`
 */
export function partitionKeyOf(collection: string, partition: string): string {
  if (!/^[\w-]+$/.test(collection)) {
    throw new TypeError(`cosmos store: invalid collection name ${JSON.stringify(collection)}`);
  }
  return `${collection}/${partition}`;
}

/**
 * The Cosmos DB id of a record id: itself, or, when it holds a character Cosmos DB refuses
 * (e-mail addresses may), `~b64~` and its base64url form.
 */
export function itemIdOf(id: string): string {
  return id === "" || refused.test(id) || id.endsWith(" ") || id.startsWith(encodedPrefix)
    ? encodedPrefix + Buffer.from(id, "utf8").toString("base64url")
    : id;
}

function recordIdOf(itemId: string): string {
  return itemId.startsWith(encodedPrefix)
    ? Buffer.from(itemId.slice(encodedPrefix.length), "base64url").toString("utf8")
    : itemId;
}

/**
 * The item that stores `record` in partition key `pk`.
 * @throws {TypeError} when the record has a field of the item's own name (`pk`)
 */
export function itemOf(record: StoreRecord, pk: string): Item {
  if (Object.hasOwn(record, partitionKeyField)) throw keyFieldRefused();
  return { ...record, id: itemIdOf(record.id), [partitionKeyField]: pk };
}

/** The error for a record, or a patch, that names the item's own field (`pk`). */
export function keyFieldRefused(): TypeError {
  return new TypeError(`cosmos store: records may not have a field named ${partitionKeyField}`);
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
