import assert from "node:assert/strict";
import { afterEach, describe, it } from "node:test";
import {
  type Store,
  StoreConflictError,
  StoreContinuationError,
  type StoreRecord,
} from "../ports/store.ts";

/** What an adapter hands to {@link runStoreConformance}. */
export interface StoreConformanceOptions {
  /** Name shown in the test report. */
  name: string;
  /** Makes a new, empty store (a fresh folder, database or container). */
  create(): Promise<Store> | Store;
  /**
   * Closes `store` and opens a new one over the same persisted data. Give it for adapters
   * that persist; the durability tests run only with it.
   */
  reopen?(store: Store): Promise<Store>;
  /**
   * Reads what is really persisted for one record, bypassing the adapter (the JSON file,
   * the Cosmos document); `undefined` when nothing is there. Bookkeeping fields beside the
   * record's own are allowed.
   */
  inspect?(store: Store, collection: string, partition: string, id: string): Promise<unknown>;
}

interface Item extends StoreRecord {
  n: number;
  tag?: string;
  words?: string[];
  nested?: unknown;
}

/** A record of the suite, typed for batch ops. */
function item(id: string, n: number): Item {
  return { id, n };
}

/**
 * The Store contract as tests: every adapter runs this unchanged (see `src/ports/store.ts`).
 * Call it at the top level of a test file.
 */
export function runStoreConformance(options: StoreConformanceOptions): void {
  describe(`Store conformance: ${options.name}`, () => {
    let open: Store[] = [];
    const fresh = async () => {
      const store = await options.create();
      open.push(store);
      return store;
    };
    afterEach(async () => {
      await Promise.all(open.map((store) => store.close()));
      open = [];
    });

    it("returns null for a record that is not there", async () => {
      const store = await fresh();
      assert.equal(await store.get("things", "p", "missing"), null);
    });

    it("creates and reads back a record with its etag, values intact", async () => {
      const store = await fresh();
      const record = {
        id: "a",
        n: 1.5,
        tag: "ünïcödé ✓",
        words: ["x", "y"],
        nested: { deep: [1, null, true, { s: "" }] },
      };
      const created = await store.create<Item>("things", "p", record);
      assert.deepEqual(created.record, record);
      assert.equal(typeof created.etag, "string");
      const read = await store.get<Item>("things", "p", "a");
      assert.deepEqual(read, created);
    });

    it("keeps collections and partitions apart", async () => {
      const store = await fresh();
      await store.create<Item>("things", "p1", { id: "a", n: 1 });
      await store.create<Item>("things", "p2", { id: "a", n: 2 });
      await store.create<Item>("others", "p1", { id: "a", n: 3 });
      assert.equal((await store.get<Item>("things", "p1", "a"))?.record.n, 1);
      assert.equal((await store.get<Item>("things", "p2", "a"))?.record.n, 2);
      assert.equal((await store.get<Item>("others", "p1", "a"))?.record.n, 3);
      assert.equal(await store.get("things", "p3", "a"), null);
    });

    it("refuses to create an id twice and keeps the first", async () => {
      const store = await fresh();
      await store.create<Item>("things", "p", { id: "a", n: 1 });
      await assert.rejects(
        store.create<Item>("things", "p", { id: "a", n: 2 }),
        (error) => error instanceof StoreConflictError && error.reason === "exists",
      );
      assert.equal((await store.get<Item>("things", "p", "a"))?.record.n, 1);
    });

    it("lets exactly one of many concurrent creates of one id win", async () => {
      const store = await fresh();
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, n) => store.create<Item>("things", "p", { id: "a", n })),
      );
      assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
      for (const r of results) {
        if (r.status === "rejected") assert.ok(r.reason instanceof StoreConflictError);
      }
    });

    it("does not let callers change stored records through what they read", async () => {
      const store = await fresh();
      // What a write is given and returns is the store's (the port's ownership rule); what
      // a read returns is the caller's own to change.
      await store.create<Item>("things", "p", { id: "a", n: 1, words: ["x"] });
      const read = await store.get<Item>("things", "p", "a");
      read?.record.words?.push("read");
      const { items } = await store.query<Item>("things", "p");
      items[0]?.words?.push("queried");
      assert.deepEqual((await store.get<Item>("things", "p", "a"))?.record.words, ["x"]);
    });

    it("replaces a record, changes its etag, and answers null for a missing one", async () => {
      const store = await fresh();
      const first = await store.create<Item>("things", "p", { id: "a", n: 1 });
      const second = await store.replace<Item>(
        "things",
        "p",
        { id: "a", n: 2 },
        { ifMatch: first.etag },
      );
      assert.ok(second);
      assert.notEqual(second.etag, first.etag);
      assert.deepEqual(await store.get("things", "p", "a"), second);
      const third = await store.replace<Item>("things", "p", { id: "a", n: 3 });
      assert.equal(third?.record.n, 3);
      assert.equal(await store.replace<Item>("things", "p", { id: "b", n: 1 }), null);
      assert.equal(await store.get("things", "p", "b"), null);
    });

    it("refuses a replace or delete with a stale etag and keeps the record", async () => {
      const store = await fresh();
      const first = await store.create<Item>("things", "p", { id: "a", n: 1 });
      await store.replace<Item>("things", "p", { id: "a", n: 2 });
      const stale = (error: unknown) =>
        error instanceof StoreConflictError && error.reason === "etag";
      await assert.rejects(
        store.replace<Item>("things", "p", { id: "a", n: 3 }, { ifMatch: first.etag }),
        stale,
      );
      await assert.rejects(store.delete("things", "p", "a", { ifMatch: first.etag }), stale);
      assert.equal((await store.get<Item>("things", "p", "a"))?.record.n, 2);
    });

    it("lets exactly one of many concurrent conditional replaces win", async () => {
      const store = await fresh();
      const { etag } = await store.create<Item>("things", "p", { id: "counter", n: 0 });
      const results = await Promise.allSettled(
        Array.from({ length: 20 }, (_, n) =>
          store.replace<Item>("things", "p", { id: "counter", n: n + 1 }, { ifMatch: etag }),
        ),
      );
      const won = results.filter((r) => r.status === "fulfilled");
      assert.equal(won.length, 1);
      const winner = (won[0] as PromiseFulfilledResult<{ record: Item } | null>).value;
      assert.equal((await store.get<Item>("things", "p", "counter"))?.record.n, winner?.record.n);
    });

    it("deletes a record and answers false for a missing one", async () => {
      const store = await fresh();
      const { etag } = await store.create<Item>("things", "p", { id: "a", n: 1 });
      assert.equal(await store.delete("things", "p", "a", { ifMatch: etag }), true);
      assert.equal(await store.get("things", "p", "a"), null);
      assert.equal(await store.delete("things", "p", "a"), false);
      await store.create<Item>("things", "p", { id: "a", n: 2 });
      assert.equal((await store.get<Item>("things", "p", "a"))?.record.n, 2);
    });

    it("writes a batch across collections and partitions and returns each etag", async () => {
      const store = await fresh();
      const kept = await store.create<Item>("things", "p1", { id: "a", n: 1 });
      await store.create<Item>("others", "p2", { id: "gone", n: 2 });
      const results = await store.batch([
        { op: "create", collection: "things", partition: "p2", record: item("b", 3) },
        {
          op: "replace",
          collection: "things",
          partition: "p1",
          record: item("a", 4),
          ifMatch: kept.etag,
        },
        { op: "delete", collection: "others", partition: "p2", id: "gone" },
      ]);
      assert.equal(results.length, 3);
      assert.deepEqual(results[0], await store.get("things", "p2", "b"));
      assert.deepEqual(results[1], await store.get("things", "p1", "a"));
      assert.equal((results[1]?.record as Item | undefined)?.n, 4);
      assert.equal(results[2], null);
      assert.equal(await store.get("others", "p2", "gone"), null);
    });

    for (const shape of ["one partition", "several partitions"]) {
      it(`writes nothing of a batch with a failed condition (${shape})`, async () => {
        const store = await fresh();
        const other = shape === "one partition" ? "p" : "q";
        const a = await store.create<Item>("things", "p", { id: "a", n: 1 });
        await store.create<Item>("things", other, { id: "b", n: 2 });
        await store.replace<Item>("things", "p", { id: "a", n: 5 });
        const before = await store.get<Item>("things", "p", "a");
        const attempts: [string, Parameters<Store["batch"]>[0]][] = [
          [
            "etag",
            [
              { op: "create", collection: "things", partition: other, record: item("c", 3) },
              { op: "delete", collection: "things", partition: other, id: "b" },
              {
                op: "replace",
                collection: "things",
                partition: "p",
                record: item("a", 9),
                ifMatch: a.etag,
              },
            ],
          ],
          [
            "etag",
            [
              { op: "create", collection: "things", partition: other, record: item("c", 3) },
              { op: "delete", collection: "things", partition: "p", id: "a", ifMatch: a.etag },
            ],
          ],
          [
            "etag",
            [
              { op: "delete", collection: "things", partition: other, id: "b" },
              { op: "replace", collection: "things", partition: "p", record: item("x", 0) },
            ],
          ],
          [
            "exists",
            [
              { op: "delete", collection: "things", partition: other, id: "b" },
              { op: "create", collection: "things", partition: "p", record: item("a", 0) },
            ],
          ],
          // A record deleted meanwhile (S3's hold that the sweep removed) fails the batch.
          [
            "etag",
            [
              { op: "create", collection: "things", partition: other, record: item("c", 3) },
              { op: "delete", collection: "things", partition: "p", id: "x", ifMatch: a.etag },
            ],
          ],
        ];
        for (const [reason, ops] of attempts) {
          await assert.rejects(
            store.batch(ops),
            (error) => error instanceof StoreConflictError && error.reason === reason,
          );
          assert.deepEqual(await store.get<Item>("things", "p", "a"), before);
          assert.equal((await store.get<Item>("things", other, "b"))?.record.n, 2);
          assert.equal(await store.get("things", other, "c"), null);
          assert.equal(await store.get("things", "p", "x"), null);
        }
      });
    }

    it("puts back what a failed batch wrote, also from the record an op carries", async () => {
      const store = await fresh();
      const a = await store.create<Item>("things", "p", { id: "a", n: 1 });
      await store.replace<Item>("things", "p", { id: "a", n: 5 });
      for (const write of ["replace", "delete"] as const) {
        const b = await store.create<Item>("things", "q", { id: `b-${write}`, n: 2 });
        const carried = { ifMatch: b.etag, previous: b.record };
        const first: Parameters<Store["batch"]>[0][number] =
          write === "replace"
            ? {
                op: "replace",
                collection: "things",
                partition: "q",
                record: item(b.record.id, 7),
                ...carried,
              }
            : { op: "delete", collection: "things", partition: "q", id: b.record.id, ...carried };
        const stale = {
          op: "replace",
          collection: "things",
          partition: "p",
          record: item("a", 9),
          ifMatch: a.etag,
        } as const;
        await assert.rejects(
          store.batch([first, stale]),
          (error) => error instanceof StoreConflictError && error.reason === "etag",
        );
        assert.deepEqual((await store.get<Item>("things", "q", b.record.id))?.record, b.record);
        assert.equal((await store.get<Item>("things", "p", "a"))?.record.n, 5);
      }
    });

    it("lets exactly one of many concurrent conditional batches win", async () => {
      const store = await fresh();
      const counter = await store.create<Item>("counters", "p", { id: "c", n: 0 });
      const outcomes = await Promise.allSettled(
        Array.from({ length: 8 }, (_, i) =>
          store.batch([
            {
              op: "replace",
              collection: "counters",
              partition: "p",
              record: item("c", 1),
              ifMatch: counter.etag,
            },
            { op: "create", collection: "things", partition: "q", record: item(`r${i}`, i) },
          ]),
        ),
      );
      const won = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
      assert.equal(won.length, 1);
      assert.equal((await store.query("things", "q")).items.length, 1);
      // The losers took nothing back of the winner's write.
      assert.deepEqual(await store.get("counters", "p", "c"), won[0]?.[0]);
    });

    it("refuses a batch that writes one record twice", async () => {
      const store = await fresh();
      const record = { id: "a", n: 1 };
      await assert.rejects(
        store.batch([
          { op: "create", collection: "things", partition: "p", record },
          { op: "replace", collection: "things", partition: "p", record },
        ]),
        TypeError,
      );
      assert.equal(await store.get("things", "p", "a"), null);
    });

    it("filters with every kind of condition", async () => {
      const store = await fresh();
      for (let n = 0; n < 6; n++) {
        const tag = n % 2 ? "odd" : "even";
        await store.create<Item>("things", "p", { id: `r${n}`, n, tag, words: [tag, `w${n}`] });
      }
      await store.create<Item>("things", "other", { id: "x", n: 3, tag: "odd" });
      const ids = async (where: Parameters<Store["query"]>[2]) =>
        (await store.query<Item>("things", "p", where)).items.map((r) => r.id);
      assert.deepEqual(await ids({ where: [{ field: "tag", op: "eq", value: "odd" }] }), [
        "r1",
        "r3",
        "r5",
      ]);
      assert.deepEqual(await ids({ where: [{ field: "n", op: "gt", value: 3 }] }), ["r4", "r5"]);
      assert.deepEqual(await ids({ where: [{ field: "n", op: "gte", value: 4 }] }), ["r4", "r5"]);
      assert.deepEqual(await ids({ where: [{ field: "n", op: "lt", value: 1 }] }), ["r0"]);
      assert.deepEqual(
        await ids({
          where: [
            { field: "n", op: "lte", value: 3 },
            { field: "words", op: "contains", value: "even" },
          ],
        }),
        ["r0", "r2"],
      );
      assert.deepEqual(await ids({ where: [{ field: "tag", op: "eq", value: "none" }] }), []);
      assert.deepEqual(await ids(undefined), ["r0", "r1", "r2", "r3", "r4", "r5"]);
    });

    it("orders by a field either way, ties by id, and compares strings by code unit", async () => {
      const store = await fresh();
      const rows: Item[] = [
        { id: "d", n: 2, tag: "2024-01-02T00:00:00.000Z" },
        { id: "a", n: 1, tag: "2024-01-01T00:00:00.000Z" },
        { id: "c", n: 2, tag: "2024-01-03T00:00:00.000Z" },
        { id: "b", n: 10, tag: "2023-12-31T00:00:00.000Z" },
      ];
      for (const row of rows) await store.create<Item>("things", "p", row);
      const order = async (field: string, direction: "asc" | "desc") =>
        (await store.query<Item>("things", "p", { orderBy: { field, direction } })).items.map(
          (r) => r.id,
        );
      assert.deepEqual(await order("n", "asc"), ["a", "c", "d", "b"]);
      assert.deepEqual(await order("n", "desc"), ["b", "c", "d", "a"]);
      assert.deepEqual(await order("tag", "asc"), ["b", "a", "d", "c"]);
    });

    it("pages with continuation tokens without skipping or repeating, even across inserts", async () => {
      const store = await fresh();
      for (let n = 0; n < 25; n++) {
        await store.create<Item>("things", "p", { id: `r${String(n).padStart(2, "0")}`, n: n % 7 });
      }
      const seen: string[] = [];
      let continuation: string | null = null;
      let pages = 0;
      do {
        const page: { items: Item[]; continuation: string | null } = await store.query<Item>(
          "things",
          "p",
          { orderBy: { field: "n" }, limit: 4, continuation },
        );
        assert.ok(page.items.length <= 4);
        seen.push(...page.items.map((r) => r.id));
        continuation = page.continuation;
        if (pages++ === 1) await store.create<Item>("things", "p", { id: "zz", n: 6 });
      } while (continuation);
      const original = seen.filter((id) => id !== "zz");
      assert.equal(new Set(original).size, 25);
      assert.equal(original.length, 25);
    });

    it("refuses a continuation token it did not issue", async () => {
      const store = await fresh();
      await store.create<Item>("things", "p", { id: "a", n: 1 });
      await assert.rejects(
        store.query("things", "p", { limit: 1, continuation: "not a token" }),
        StoreContinuationError,
      );
    });

    it("deletes a whole partition and nothing else", async () => {
      const store = await fresh();
      for (let n = 0; n < 5; n++) await store.create<Item>("things", "p", { id: `r${n}`, n });
      await store.create<Item>("things", "keep", { id: "r0", n: 0 });
      assert.equal(await store.deletePartition("things", "p"), 5);
      assert.deepEqual((await store.query("things", "p")).items, []);
      assert.equal(await store.get("things", "p", "r0"), null);
      assert.ok(await store.get("things", "keep", "r0"));
      assert.equal(await store.deletePartition("things", "p"), 0);
    });

    const { reopen, inspect } = options;
    if (reopen) {
      it("keeps every acknowledged write across a reopen", async () => {
        const store = await fresh();
        const writes = Array.from({ length: 200 }, (_, n) =>
          store.create<Item>("things", `p${n % 3}`, { id: `r${n}`, n }),
        );
        await Promise.all(writes);
        await store.replace<Item>("things", "p0", { id: "r0", n: -1 });
        await store.delete("things", "p1", "r1");
        await store.deletePartition("things", "p2");
        await store.batch([
          { op: "create", collection: "things", partition: "p0", record: item("b1", 1) },
          { op: "delete", collection: "things", partition: "p1", id: "r4" },
          { op: "create", collection: "others", partition: "p2", record: item("b2", 2) },
        ]);
        const again = await reopen(store);
        open = [again];
        assert.equal((await again.get<Item>("things", "p0", "r0"))?.record.n, -1);
        assert.equal(await again.get("things", "p1", "r1"), null);
        assert.equal((await again.query("things", "p1")).items.length, 65);
        assert.equal((await again.query("things", "p2")).items.length, 0);
        assert.equal((await again.query("things", "p0")).items.length, 68);
        assert.equal((await again.get<Item>("others", "p2", "b2"))?.record.n, 2);
      });
    }

    if (inspect) {
      it("persists exactly the record that was written", async () => {
        const store = await fresh();
        const record = { id: "a", n: 1, nested: { k: ["v"] } };
        await store.create<Item>("things", "p", record);
        const raw = (await inspect(store, "things", "p", "a")) as Record<string, unknown>;
        // Adapters may keep bookkeeping beside the record (Cosmos `_etag`, `_ts`).
        assert.deepEqual(Object.fromEntries(Object.keys(record).map((k) => [k, raw[k]])), record);
        await store.delete("things", "p", "a");
        assert.equal(await inspect(store, "things", "p", "a"), undefined);
      });
    }
  });
}
