/** What the Store conformance cases share: the adapter's options and a store per case. */
import type { Store, StoreRecord } from "../ports/index.ts";
import type { ConformanceCase } from "./conformance-case.ts";

/** What an adapter hands to `storeConformanceCases` (or `runStoreConformance`). */
export interface StoreConformanceOptions {
  /** Name shown in the test report. */
  name: string;
  /** Makes a new, empty store (a fresh folder, database or container). */
  create(): Promise<Store> | Store;
  /**
   * Closes `store` and opens a new one over the same persisted data. Give it for adapters
   * that persist; the durability case runs only with it.
   */
  reopen?(store: Store): Promise<Store>;
  /**
   * Reads what is really persisted for one record, bypassing the adapter (the JSON file,
   * the Cosmos document); `undefined` when nothing is there. Bookkeeping fields beside the
   * record's own are allowed.
   */
  inspect?(store: Store, collection: string, partition: string, id: string): Promise<unknown>;
}

/** The stores one case uses; every one of them is closed when the case ends. */
export interface StoreFixture {
  /** Makes a new, empty store. */
  fresh(): Promise<Store>;
  /** Reopens `store` over its persisted data (the options' `reopen`). */
  reopen(store: Store): Promise<Store>;
}

/** A record of the suite. */
export interface Item extends StoreRecord {
  n: number;
  tag?: string;
  words?: string[];
  nested?: unknown;
}

/** A record of the suite, typed for batch ops. */
export function item(id: string, n: number): Item {
  return { id, n };
}

/** A conformance case whose body gets a {@link StoreFixture}; it closes what the body opened. */
export function storeCase(
  options: StoreConformanceOptions,
  name: string,
  body: (fixture: StoreFixture) => Promise<void>,
): ConformanceCase {
  return {
    name,
    async run() {
      let open: Store[] = [];
      const fixture: StoreFixture = {
        async fresh() {
          const store = await options.create();
          open.push(store);
          return store;
        },
        async reopen(store) {
          if (!options.reopen) throw new TypeError("the adapter gave no reopen");
          open = open.filter((other) => other !== store);
          const again = await options.reopen(store);
          open.push(again);
          return again;
        },
      };
      try {
        await body(fixture);
      } finally {
        await Promise.all(open.map((store) => store.close()));
      }
    },
  };
}
