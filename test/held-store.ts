/**
 * A Store wrapper for tests of stopping: it can hold one call's answer until the test lets
 * it go (as a slow disk or network would), and it records every call that comes after
 * `close`, which a real store (lowdb) refuses with "the store is closed".
 */
import type { Store } from "../src/ports/store.ts";

type Method = Exclude<keyof Store, "close" | "batch">;

/** A call to hold: the method and the collection it names. */
export interface HoldMatch {
  method: Method;
  collection: string;
}

/** A held call. */
export interface Hold {
  /** Resolves when the matching call has reached the store (and been answered there). */
  reached: Promise<void>;
  /** Hands the answer on to the caller. */
  release(): void;
}

/** The wrapper and what it saw. */
export interface HeldStore {
  store: Store;
  /** Holds the answer of the next call that matches. */
  hold(match: HoldMatch): Hold;
  /** Calls made after `close` began, as `method collection`. */
  lateCalls: string[];
  /** Whether `close` was called. */
  closed(): boolean;
}

/** Wraps `inner`; its `close` closes `inner` too. */
export function heldStore(inner: Store): HeldStore {
  const lateCalls: string[] = [];
  let closed = false;
  let held: (HoldMatch & { hit(): void; gate: Promise<void> }) | undefined;
  const wrap =
    (method: Method) =>
    async (collection: string, ...rest: unknown[]): Promise<unknown> => {
      if (closed) {
        lateCalls.push(`${method} ${collection}`);
        throw new Error("held store: the store is closed");
      }
      const call = inner[method] as (...args: unknown[]) => Promise<unknown>;
      const answer = await call.call(inner, collection, ...rest);
      if (held && held.method === method && held.collection === collection) {
        const { hit, gate } = held;
        held = undefined;
        hit();
        await gate;
      }
      return answer;
    };
  const store: Store = {
    get: wrap("get") as Store["get"],
    create: wrap("create") as Store["create"],
    replace: wrap("replace") as Store["replace"],
    delete: wrap("delete") as Store["delete"],
    query: wrap("query") as Store["query"],
    scan: (options) => inner.scan(options),
    deletePartition: wrap("deletePartition") as Store["deletePartition"],
    // A batch is held when one of its ops matches (a create of a submission in S2's batch).
    async batch(ops) {
      if (closed) {
        lateCalls.push(...ops.map((op) => `batch ${op.collection}`));
        throw new Error("held store: the store is closed");
      }
      const answer = await inner.batch(ops);
      const match = held;
      if (match && ops.some((op) => op.op === match.method && op.collection === match.collection)) {
        held = undefined;
        match.hit();
        await match.gate;
      }
      return answer;
    },
    async close() {
      closed = true;
      await inner.close();
    },
  };
  return {
    store,
    hold(match) {
      let hit = () => {};
      let release = () => {};
      const reached = new Promise<void>((resolve) => {
        hit = resolve;
      });
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      held = { ...match, hit, gate };
      return { reached, release };
    },
    lateCalls,
    closed: () => closed,
  };
}
