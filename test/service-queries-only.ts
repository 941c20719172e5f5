import { isServiceQuery } from "../src/ports/service-queries.ts";
import type { Store } from "../src/ports/store.ts";

/**
 * A store that refuses, with a `TypeError`, every query outside `serviceQueries`: the test
 * services run over it, so that a query the list lacks fails the suite that issues it.
 */
export function serviceQueriesOnly(store: Store): Store {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (property !== "query") return typeof value === "function" ? value.bind(target) : value;
      const query: Store["query"] = async (collection, partition, shape) => {
        if (!isServiceQuery(collection, shape)) {
          const text = JSON.stringify({ collection, ...shape });
          throw new TypeError(`a query outside serviceQueries: ${text}`);
        }
        return target.query(collection, partition, shape);
      };
      return query;
    },
  });
}
