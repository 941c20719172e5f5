/** Store conformance: the full scan (`scan`), which copying a store to another reads. */
import assert from "node:assert/strict";
import { type ScannedRecord, type Store, StoreContinuationError } from "../ports/index.ts";
import type { ConformanceCase } from "./conformance-case.ts";
import { partitions, recordId, recordIds } from "./real-ids.ts";
import {
  type Item,
  type StoreConformanceOptions,
  type StoreFixture,
  storeCase,
} from "./store-fixture.ts";

type Def = [string, (fixture: StoreFixture) => Promise<void>];
const test = (name: string, body: Def[1]): Def => [name, body];

/** Every page of a scan, pages of at most `limit`. */
async function scanAll(store: Store, limit?: number): Promise<ScannedRecord[]> {
  const items: ScannedRecord[] = [];
  let continuation: string | null = null;
  let pages = 0;
  do {
    const page = await store.scan({ limit, continuation });
    if (limit !== undefined) assert.ok(page.items.length <= limit, "a page holds at most limit");
    items.push(...page.items);
    continuation = page.continuation;
    assert.ok(++pages < 10_000, "the scan ends");
  } while (continuation);
  return items;
}

/** `collection partition id` of each item, sorted, to compare sets. */
const keys = (
  items: readonly { collection: string; partition: string; record: { id: string } }[],
) =>
  items
    .map(({ collection, partition, record }) => `${collection} ${partition} ${record.id}`)
    .sort();

/**
 * Partitions of every shape a store must name back: real ones, the empty name, and names
 * too long for one file name (the lowdb store shortens those).
 */
function oddPartitions(): string[] {
  const { form, user, email, customer } = partitions();
  const long = `email:${"Ada.Lovelace".repeat(12)}.${recordId()}@example.com`;
  return [form, user, email, customer, "", long, "ünï/cödé ✓?#%"];
}

/** Writes `n` records over the partitions `names` in two collections, and one more by batch. */
async function fill(store: Store, names: string[], n: number) {
  const written: { collection: string; partition: string; record: Item }[] = [];
  const ids = recordIds(n);
  await Promise.all(
    ids.map((id, i) => {
      const collection = i % 3 === 0 ? "form_users" : "submissions";
      const partition = names[i % names.length] as string;
      const record = { id, n: i };
      written.push({ collection, partition, record });
      return store.create<Item>(collection, partition, record);
    }),
  );
  const batched = {
    collection: "datalists",
    partition: names[0] as string,
    record: { id: recordId(), n: -1 },
  };
  await store.batch([{ op: "create", ...batched }]);
  written.push(batched);
  return written;
}

const cases: Def[] = [
  test("scans an empty store as one empty last page", async ({ fresh }) => {
    const store = await fresh();
    assert.deepEqual(await store.scan(), { items: [], continuation: null });
  }),

  test("scans every record of every collection and partition once, as get answers it", async ({
    fresh,
  }) => {
    const store = await fresh();
    const written = await fill(store, oddPartitions(), 40);
    for (const limit of [undefined, 1, 7]) {
      const items = await scanAll(store, limit);
      assert.deepEqual(keys(items), keys(written), `limit ${limit}`);
    }
    for (const item of await scanAll(store, 5)) {
      const stored = await store.get<Item>(item.collection, item.partition, item.record.id);
      assert.deepEqual({ record: item.record, etag: item.etag }, stored);
    }
  }),

  test("scans past what was deleted, a record or a partition", async ({ fresh }) => {
    const store = await fresh();
    const [kept, gone] = [partitions().form, partitions().user];
    const [a, b, c] = recordIds(3) as [string, string, string];
    await store.create<Item>("submissions", kept, { id: a, n: 1 });
    await store.create<Item>("submissions", kept, { id: b, n: 2 });
    await store.create<Item>("submissions", gone, { id: c, n: 3 });
    await store.delete("submissions", kept, b);
    await store.deletePartition("submissions", gone);
    assert.deepEqual(
      (await scanAll(store)).map(({ record }) => record.id),
      [a],
    );
  }),

  test("scans with writes between pages, skipping and repeating no record that exists throughout", async ({
    fresh,
  }) => {
    const store = await fresh();
    const names = oddPartitions();
    const written = await fill(store, names, 30);
    const seen: string[] = [];
    let continuation: string | null = null;
    let round = 0;
    do {
      const page = await store.scan({ limit: 4, continuation });
      seen.push(...keys(page.items));
      continuation = page.continuation;
      // A new partition, and a new record in each old one, between every two pages.
      const partition = `${names[0]}-${round++}`;
      await store.create<Item>("submissions", partition, { id: recordId(), n: round });
      await store.create<Item>("submissions", names[round % names.length] as string, {
        id: recordId(),
        n: round,
      });
    } while (continuation);
    const counted = new Map<string, number>();
    for (const key of seen) counted.set(key, (counted.get(key) ?? 0) + 1);
    for (const key of keys(written)) assert.equal(counted.get(key), 1, key);
  }),

  test("refuses a scan continuation it did not issue", async ({ fresh }) => {
    const store = await fresh();
    await fill(store, [partitions().form], 3);
    await assert.rejects(
      store.scan({ continuation: "not-a-token" }),
      (error) => error instanceof StoreContinuationError,
    );
  }),
];

/** The scan's cases; with `reopen`, also across a reopen (names read back from what persists). */
export function scanCases(options: StoreConformanceOptions): ConformanceCase[] {
  const all = [...cases];
  if (options.reopen) {
    all.push(
      test("scans every record across a reopen, names of every shape read back", async (f) => {
        const store = await f.fresh();
        const written = await fill(store, oddPartitions(), 30);
        const again = await f.reopen(store);
        assert.deepEqual(keys(await scanAll(again, 6)), keys(written));
        const third = await f.reopen(again);
        assert.deepEqual(keys(await scanAll(third)), keys(written));
      }),
    );
  }
  return all.map(([name, body]) => storeCase(options, name, body));
}
