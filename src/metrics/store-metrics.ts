import { type BatchOp, type Store, StoreConflictError } from "../ports/store.ts";
import type { ServiceMetrics } from "./service-metrics.ts";

/**
 * `store` with each call recorded in `formwork_store_call_duration_seconds` by operation and
 * collection, and each conflict in `formwork_store_conflicts_total` with its reason
 * (docs/design.md §10). A batch names its collection when all its operations share one,
 * else `(several)`; `scan` names `(all)`. The same `store` and `metrics` give the same
 * wrapper, so that what is kept per store (the counter turns of
 * domain/quotas/counter-turns.ts) is shared by everything the service does with it.
 */
export function measuredStore(store: Store, metrics: ServiceMetrics): Store {
  let byMetrics = wrappers.get(store);
  if (!byMetrics) {
    byMetrics = new WeakMap();
    wrappers.set(store, byMetrics);
  }
  let measured = byMetrics.get(metrics);
  if (!measured) {
    measured = wrap(store, metrics);
    byMetrics.set(metrics, measured);
  }
  return measured;
}

/** The measured wrappers of each store, by the metrics they record into. */
const wrappers = new WeakMap<Store, WeakMap<ServiceMetrics, Store>>();

function wrap(store: Store, metrics: ServiceMetrics): Store {
  const call = async <T>(
    operation: string,
    collection: string,
    run: () => Promise<T>,
  ): Promise<T> => {
    const started = performance.now();
    try {
      return await run();
    } catch (error) {
      if (error instanceof StoreConflictError) {
        metrics.storeConflict(operation, collection, error.reason);
      }
      throw error;
    } finally {
      metrics.storeCall(operation, collection, (performance.now() - started) / 1000);
    }
  };
  return {
    get: (collection, partition, id) =>
      call("get", collection, () => store.get(collection, partition, id)),
    create: (collection, partition, record) =>
      call("create", collection, () => store.create(collection, partition, record)),
    replace: (collection, partition, record, options) =>
      call("replace", collection, () => store.replace(collection, partition, record, options)),
    delete: (collection, partition, id, options) =>
      call("delete", collection, () => store.delete(collection, partition, id, options)),
    query: (collection, partition, query) =>
      call("query", collection, () => store.query(collection, partition, query)),
    batch: (ops) => call("batch", sharedCollection(ops), () => store.batch(ops)),
    deletePartition: (collection, partition) =>
      call("deletePartition", collection, () => store.deletePartition(collection, partition)),
    scan: (options) => call("scan", "(all)", () => store.scan(options)),
    close: () => store.close(),
  };
}

/** The collection every operation of `ops` writes to, or `(several)`. */
function sharedCollection(ops: readonly BatchOp[]): string {
  const first = ops[0]?.collection;
  return first !== undefined && ops.every((op) => op.collection === first) ? first : "(several)";
}
