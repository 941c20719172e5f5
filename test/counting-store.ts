import type { Store } from "../src/ports/store.ts";

/**
 * A store that notes every call as `<method> <collection>` (`batch` for a batch) into
 * `calls`, then passes it on: for tests of how many store calls a path makes.
 */
export function countingStore(store: Store, calls: string[]): Store {
  return new Proxy(store, {
    get(target, property) {
      const value = Reflect.get(target, property, target);
      if (typeof value !== "function") return value;
      return (...args: unknown[]) => {
        const collection = typeof args[0] === "string" ? ` ${args[0]}` : "";
        calls.push(`${String(property)}${collection}`);
        return value.apply(target, args);
      };
    },
  });
}
