import { Buffer } from "node:buffer";
import {
  type Condition,
  type Page,
  type Query,
  StoreContinuationError,
  type Stored,
  type StoreRecord,
} from "./store.ts";

/**
 * The reference meaning of a `Query` over records held in memory, each with its etag: filter,
 * order, then page by keyset (the continuation names the last record returned, so inserts
 * between pages never shift the next page). Adapters that keep records in memory (memory,
 * lowdb) use it as is. It hands back the entries it was given, not copies.
 */
export function evaluateQuery<T extends StoreRecord>(
  entries: Iterable<Stored<T>>,
  query: Query = {},
): Page<T> {
  const where = query.where ?? [];
  const field = query.orderBy?.field ?? "id";
  const sign = query.orderBy?.direction === "desc" ? -1 : 1;
  const order = (a: StoreRecord, b: StoreRecord) =>
    sign * compareValues(fieldOf(a, field), fieldOf(b, field)) || compareValues(a.id, b.id);

  let items = [...entries].filter(({ record }) => where.every((c) => matches(record, c)));
  items.sort((a, b) => order(a.record, b.record));
  if (query.continuation) {
    const after = decodeCursor(query.continuation, field);
    items = items.filter(({ record }) => order(record, after) > 0);
  }
  const limit = query.limit ?? Number.POSITIVE_INFINITY;
  if (items.length <= limit) return { items, continuation: null };
  const page = items.slice(0, limit);
  const last = (page[page.length - 1] as Stored<T>).record;
  return { items: page, continuation: encodeCursor(fieldOf(last, field), last.id) };
}

/** Orders scalars: missing < boolean < number < string; within a kind, naturally. */
export function compareValues(a: unknown, b: unknown): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra - rb;
  if (typeof a === "number" && typeof b === "number") return a - b;
  if (typeof a === "boolean" && typeof b === "boolean") return Number(a) - Number(b);
  if (typeof a === "string" && typeof b === "string") return a < b ? -1 : a > b ? 1 : 0;
  return 0;
}

function rank(value: unknown): number {
  switch (typeof value) {
    case "boolean":
      return 1;
    case "number":
      return 2;
    case "string":
      return 3;
    default:
      return 0;
  }
}

function fieldOf(record: StoreRecord, field: string): unknown {
  return (record as unknown as Record<string, unknown>)[field];
}

function matches(record: StoreRecord, condition: Condition): boolean {
  const value = fieldOf(record, condition.field);
  switch (condition.op) {
    case "eq":
      return value === condition.value;
    case "contains":
      return Array.isArray(value) && value.includes(condition.value);
    default: {
      if (typeof value !== typeof condition.value) return false;
      const c = compareValues(value, condition.value);
      if (condition.op === "gt") return c > 0;
      if (condition.op === "gte") return c >= 0;
      if (condition.op === "lt") return c < 0;
      return c <= 0;
    }
  }
}

function encodeCursor(value: unknown, id: string): string {
  return Buffer.from(JSON.stringify([value ?? null, id])).toString("base64url");
}

/**
 * Reads a continuation token of {@link evaluateQuery}: the last record a page returned, as
 * far as the order needs it (`id` and the order field).
 * @throws {StoreContinuationError} for a token it did not issue
 */
export function decodeCursor(token: string, field: string): StoreRecord {
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch (cause) {
    throw new StoreContinuationError(undefined, { cause });
  }
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[1] !== "string") {
    throw new StoreContinuationError();
  }
  return { id: parsed[1], [field]: parsed[0] ?? undefined } as StoreRecord;
}
