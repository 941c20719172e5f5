/**
 * A Store `Query` as parameterized Cosmos DB SQL over one partition key. Values always go
 * in as parameters; field names are checked to be plain identifiers and quoted.
 */
import type { SqlParameter, SqlQuerySpec } from "@azure/cosmos";
import type { Condition, Query } from "formwork/ports";
import { collectionField, itemIdOf, type Place, partitionKeyField } from "./documents.ts";

/**
 * The SQL of `query` over one collection's records in one partition key (`place`). It orders by the query's field and then by
 * `id`, both ascending unless the query says descending for its field: on Cosmos DB such a
 * two-field ORDER BY needs a composite index (see `indexing-policy.ts`).
 * @throws {TypeError} for a field name that is not a plain identifier, or is the partition key
 */
export function querySpecOf(place: Place, query: Query = {}): SqlQuerySpec {
  const parameters = placeParameters(place);
  const filters = [placeFilter];
  for (const [index, condition] of (query.where ?? []).entries()) {
    const name = `@v${index}`;
    // Ids are stored encoded when they hold characters Cosmos DB refuses.
    const value =
      condition.field === "id" && typeof condition.value === "string"
        ? itemIdOf(place.collection, condition.value)
        : condition.value;
    parameters.push({ name, value });
    filters.push(filterOf(condition, name));
  }
  return {
    query: `SELECT * FROM c WHERE ${filters.join(" AND ")} ORDER BY ${orderOf(query)}`,
    parameters,
  };
}

/** The SQL that lists the ids of one collection's records in one partition, for deleting them. */
export function idsSpecOf(place: Place): SqlQuerySpec {
  return { query: `SELECT c.id FROM c WHERE ${placeFilter}`, parameters: placeParameters(place) };
}

/**
 * The SQL of `Store.scan`: every item of a record, across partition keys. The store's own
 * items (intents, markers) have a collection starting with `~`, which no collection name
 * the store accepts does (`placeOf`).
 */
export const scanSpec: SqlQuerySpec = {
  query: `SELECT * FROM c WHERE NOT STARTSWITH(c.${collectionField}, "~")`,
};

const placeFilter = `c.${partitionKeyField} = @pk AND c.${collectionField} = @coll`;

function placeParameters(place: Place): SqlParameter[] {
  return [
    { name: "@pk", value: place.pk },
    { name: "@coll", value: place.collection },
  ];
}

function filterOf(condition: Condition, name: string): string {
  const field = fieldOf(condition.field);
  switch (condition.op) {
    case "eq":
      return `${field} = ${name}`;
    case "contains":
      return `ARRAY_CONTAINS(${field}, ${name})`;
    case "gt":
      return `${field} > ${name}`;
    case "gte":
      return `${field} >= ${name}`;
    case "lt":
      return `${field} < ${name}`;
    case "lte":
      return `${field} <= ${name}`;
    default:
      throw new TypeError(`cosmos store: unknown condition ${JSON.stringify(condition)}`);
  }
}

function orderOf(query: Query): string {
  const direction = query.orderBy?.direction === "desc" ? "DESC" : "ASC";
  const field = query.orderBy?.field ?? "id";
  // Ids are unique within a partition, so they alone give a total order.
  if (field === "id") return `c.id ${direction}`;
  return `${fieldOf(field)} ${direction}, c.id ASC`;
}

/** A top-level field as SQL: `c["name"]`, which also works for names SQL reserves. */
function fieldOf(name: string): string {
  if (!/^[A-Za-z_$][\w$]*$/.test(name) || name === partitionKeyField || name === collectionField) {
    throw new TypeError(`cosmos store: cannot query field ${JSON.stringify(name)}`);
  }
  return `c[${JSON.stringify(name)}]`;
}
