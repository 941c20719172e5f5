import type { Store } from "../src/ports/store.ts";

/**
 * `inner`, until, once armed, a call for which `fatal(name, args)` holds has landed: from
 * then on every call fails, as if the process had died at that instant; `close` only closes
 * `inner`.
 */
export function crashingStore(inner: Store, fatal: (name: string, args: unknown[]) => boolean) {
  let armed = false;
  let crashed = false;
  const store = new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      if (name === "close") return () => target.close();
      return async (...args: unknown[]) => {
        if (crashed) throw new Error("the process died");
        const answer = await value.apply(target, args);
        if (armed && fatal(String(name), args)) crashed = true;
        return answer;
      };
    },
  });
  return { store, arm: () => (armed = true) };
}
