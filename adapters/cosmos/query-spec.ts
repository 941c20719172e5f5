/**
 * A Store `Query` as parameterized Cosmos DB SQL over one partition key. Values always go
 * in as parameters; field names are checked to be plain identifiers and quoted.
 */
import type { SqlParameter, SqlQuerySpec } from "@azure/cosmos";
import type { Condition, Query } from "formwork/ports";
import { itemIdOf, partitionKeyField } from "./documents.ts";

/**
 * The SQL of `query` within partition key `pk`. It orders by the query's field and then by
 * `id`, both ascending unless the query says descending for its field: on Cosmos DB such a
 * two-field ORDER BY needs a composite index (see `indexing-policy.ts`).
 * @throws {TypeError} for a field name that is not a plain identifier, or is the partition key
 */
export function querySpecOf(pk: string, query: Query = {}): SqlQuerySpec {
  const parameters: SqlParameter[] = [{ name: "@pk", value: pk }];
  const filters = [`c.${partitionKeyField} = @pk`];
  for (const [index, condition] of (query.where ?? []).entries()) {
    const name = `@v${index}`;
    // Ids are stored encoded when they hold characters Cosmos DB refuses.
    const value =
      condition.field === "id" && typeof condition.value === "string"
        ? itemIdOf(condition.value)
        : condition.value;
    parameters.push({ name, value });
    filters.push(filterOf(condition, name));
  }
  return {
    query: `SELECT * FROM c WHERE ${filters.join(" AND ")} ORDER BY ${orderOf(query)}`,
    parameters,
  };
}

/** The SQL that lists the ids of one partition, for deleting it. */
export function idsSpecOf(pk: string): SqlQuerySpec {
  return {
    query: `SELECT c.id FROM c WHERE c.${partitionKeyField} = @pk`,
    parameters: [{ name: "@pk", value: pk }],
  };
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
  if (!/^[A-Za-z_$][\w$]*$/.test(name) || name === partitionKeyField) {
    throw new TypeError(`cosmos store: cannot query field ${JSON.stringify(name)}`);
  }
  return `c[${JSON.stringify(name)}]`;
}
