import { type Attributes, context, SpanKind, type Tracer, trace } from "@opentelemetry/api";
import { type BatchOp, type Store, StoreConflictError, type StoreRecord } from "../ports/store.ts";
import { spanFailed } from "./tracer.ts";

/**
 * `store` with each call in a CLIENT span `store.<operation> <collection>` (docs/design.md
 * §10), a child of the span active then (the request's): `db.operation.name`,
 * `db.collection.name` (a batch names it when all its operations share one, and gives
 * `db.operation.batch.size`), and on a conflict `formwork.store.conflict` (`etag` or
 * `exists`) and the failure. Never a partition, an id or a record. Without a tracer
 * provider each span is the API's no-op one (a few hundred nanoseconds a call).
 */
export function tracedStore(store: Store, tracer: Tracer): Store {
  // One wrapper per store: services over one store share what is kept per store (the
  // counter turns of domain/quotas/counter-turns.ts).
  let traced = wrappers.get(store);
  if (!traced) {
    traced = wrap(store, tracer);
    wrappers.set(store, traced);
  }
  return traced;
}

/** The traced wrapper of each store wrapped so far. */
const wrappers = new WeakMap<Store, Store>();

function wrap(store: Store, tracer: Tracer): Store {
  const call = <T>(
    operation: string,
    collection: string | undefined,
    run: () => Promise<T>,
    more: Attributes = {},
  ): Promise<T> => {
    const name = collection ? `store.${operation} ${collection}` : `store.${operation}`;
    const attributes: Attributes = { "db.operation.name": operation, ...more };
    if (collection) attributes["db.collection.name"] = collection;
    const span = tracer.startSpan(name, { kind: SpanKind.CLIENT, attributes });
    // No provider: no context to enter and nothing to end, so no cost beyond the no-op span.
    if (!span.isRecording()) return run();
    return context.with(trace.setSpan(context.active(), span), async () => {
      try {
        return await run();
      } catch (error) {
        if (error instanceof StoreConflictError) {
          span.setAttribute("formwork.store.conflict", error.reason);
        }
        spanFailed(span, error);
        throw error;
      } finally {
        span.end();
      }
    });
  };
  return {
    get: <T extends StoreRecord>(collection: string, partition: string, id: string) =>
      call("get", collection, () => store.get<T>(collection, partition, id)),
    create: <T extends StoreRecord>(collection: string, partition: string, record: T) =>
      call("create", collection, () => store.create(collection, partition, record)),
    replace: (collection, partition, record, options) =>
      call("replace", collection, () => store.replace(collection, partition, record, options)),
    delete: (collection, partition, id, options) =>
      call("delete", collection, () => store.delete(collection, partition, id, options)),
    query: <T extends StoreRecord>(
      collection: string,
      partition: string,
      query?: Parameters<Store["query"]>[2],
    ) => call("query", collection, () => store.query<T>(collection, partition, query)),
    batch: (ops) =>
      call("batch", sharedCollection(ops), () => store.batch(ops), {
        "db.operation.batch.size": ops.length,
      }),
    deletePartition: (collection, partition) =>
      call("deletePartition", collection, () => store.deletePartition(collection, partition)),
    scan: (options) => call("scan", undefined, () => store.scan(options)),
    close: () => store.close(),
  };
}

/** The collection every operation of `ops` writes to, or `undefined` when they differ. */
function sharedCollection(ops: readonly BatchOp[]): string | undefined {
  const first = ops[0]?.collection;
  return ops.every((op) => op.collection === first) ? first : undefined;
}
