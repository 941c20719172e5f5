/** Store conformance: `query` (conditions, order, pages, etags) and `deletePartition`. */
import assert from "node:assert/strict";
import {
  type Page,
  type Query,
  StoreConflictError,
  StoreContinuationError,
} from "../ports/index.ts";
import type { ConformanceCase } from "./conformance-case.ts";
import { partitions, recordIds } from "./real-ids.ts";
import {
  type Item,
  type StoreConformanceOptions,
  type StoreFixture,
  storeCase,
} from "./store-fixture.ts";

/** A case of this file: its name and its body, made into a case per adapter below. */
type Def = [string, (fixture: StoreFixture) => Promise<void>];
const test = (name: string, body: Def[1]): Def => [name, body];

const cases: Def[] = [
  test("answers each queried record with the etag a write can be conditional on", async ({
    fresh,
  }) => {
    const store = await fresh();
    const { form } = partitions();
    const [a, b] = recordIds(2) as [string, string];
    await store.create<Item>("webhook_outbox", form, { id: a, n: 1 });
    await store.create<Item>("webhook_outbox", form, { id: b, n: 2 });
    await store.replace<Item>("webhook_outbox", form, { id: b, n: 3 });
    const { items } = await store.query<Item>("webhook_outbox", form);
    assert.deepEqual(items, [
      await store.get("webhook_outbox", form, a),
      await store.get("webhook_outbox", form, b),
    ]);
    const [first] = items;
    assert.ok(first);
    const written = await store.replace<Item>(
      "webhook_outbox",
      form,
      { id: a, n: 4 },
      { ifMatch: first.etag },
    );
    assert.equal(written?.record.n, 4);
    await assert.rejects(
      store.delete("webhook_outbox", form, a, { ifMatch: first.etag }),
      (error) => error instanceof StoreConflictError && error.reason === "etag",
    );
  }),

  test("filters with every kind of condition", async ({ fresh }) => {
    const store = await fresh();
    const { form, user } = partitions();
    const r = recordIds(6);
    for (const [n, id] of r.entries()) {
      const tag = n % 2 ? "odd" : "even";
      await store.create<Item>("submissions", form, { id, n, tag, words: [tag, `w${n}`] });
    }
    await store.create<Item>("submissions", user, { id: r[3] as string, n: 3, tag: "odd" });
    const ids = async (query: Query | undefined) =>
      (await store.query<Item>("submissions", form, query)).items.map((s) => s.record.id);
    const pick = (...at: number[]) => at.map((n) => r[n]);
    assert.deepEqual(
      await ids({ where: [{ field: "tag", op: "eq", value: "odd" }] }),
      pick(1, 3, 5),
    );
    assert.deepEqual(await ids({ where: [{ field: "n", op: "gt", value: 3 }] }), pick(4, 5));
    assert.deepEqual(await ids({ where: [{ field: "n", op: "gte", value: 4 }] }), pick(4, 5));
    assert.deepEqual(await ids({ where: [{ field: "n", op: "lt", value: 1 }] }), pick(0));
    const both: Query = {
      where: [
        { field: "n", op: "lte", value: 3 },
        { field: "words", op: "contains", value: "even" },
      ],
    };
    assert.deepEqual(await ids(both), pick(0, 2));
    assert.deepEqual(await ids({ where: [{ field: "tag", op: "eq", value: "none" }] }), []);
    assert.deepEqual(
      await ids({ where: [{ field: "id", op: "eq", value: r[2] as string }] }),
      pick(2),
    );
    assert.deepEqual(await ids(undefined), r);
  }),

  test("never converts types in a condition; a missing field matches nothing", async ({
    fresh,
  }) => {
    const store = await fresh();
    const { form } = partitions();
    const [num, text, flag, none, list] = recordIds(5) as string[];
    const rows: Record<string, unknown>[] = [
      { id: num, v: 1, w: [1] },
      { id: text, v: "1", w: ["1"] },
      { id: flag, v: true, w: [true] },
      { id: none },
      { id: list, v: [1], w: 1 },
    ];
    for (const row of rows) await store.create("submissions", form, row as unknown as Item);
    const ids = async (where: Query["where"]) =>
      (await store.query<Item>("submissions", form, { where })).items.map((s) => s.record.id);
    assert.deepEqual(await ids([{ field: "v", op: "eq", value: 1 }]), [num]);
    assert.deepEqual(await ids([{ field: "v", op: "eq", value: "1" }]), [text]);
    assert.deepEqual(await ids([{ field: "v", op: "eq", value: true }]), [flag]);
    assert.deepEqual(await ids([{ field: "v", op: "gte", value: 0 }]), [num]);
    assert.deepEqual(await ids([{ field: "v", op: "lt", value: "2" }]), [text]);
    assert.deepEqual(await ids([{ field: "w", op: "contains", value: 1 }]), [num]);
    assert.deepEqual(await ids([{ field: "w", op: "contains", value: "1" }]), [text]);
  }),

  test("orders by a field either way, ties by id, and compares strings by code unit", async ({
    fresh,
  }) => {
    const store = await fresh();
    const { form } = partitions();
    const [a, b, c, d] = recordIds(4);
    const rows: Item[] = [
      { id: d as string, n: 2, tag: "2024-01-02T00:00:00.000Z" },
      { id: a as string, n: 1, tag: "2024-01-01T00:00:00.000Z" },
      { id: c as string, n: 2, tag: "2024-01-03T00:00:00.000Z" },
      { id: b as string, n: 10, tag: "2023-12-31T00:00:00.000Z" },
    ];
    for (const row of rows) await store.create<Item>("submissions", form, row);
    const order = async (field: string, direction: "asc" | "desc") =>
      (await store.query<Item>("submissions", form, { orderBy: { field, direction } })).items.map(
        (s) => s.record.id,
      );
    assert.deepEqual(await order("n", "asc"), [a, c, d, b]);
    assert.deepEqual(await order("n", "desc"), [b, c, d, a]);
    assert.deepEqual(await order("tag", "asc"), [b, a, d, c]);
    assert.deepEqual(await order("id", "desc"), [d, c, b, a]);
  }),

  test("pages with continuation tokens without skipping or repeating, even across inserts", async ({
    fresh,
  }) => {
    const store = await fresh();
    const { form } = partitions();
    const ids = recordIds(26);
    const late = ids.pop() as string;
    for (const [n, id] of ids.entries()) {
      await store.create<Item>("submissions", form, { id, n: n % 7 });
    }
    const seen: string[] = [];
    let continuation: string | null = null;
    let pages = 0;
    do {
      const page: Page<Item> = await store.query<Item>("submissions", form, {
        orderBy: { field: "n" },
        limit: 4,
        continuation,
      });
      assert.ok(page.items.length <= 4);
      seen.push(...page.items.map((s) => s.record.id));
      continuation = page.continuation;
      if (pages++ === 1) await store.create<Item>("submissions", form, { id: late, n: 6 });
    } while (continuation);
    const original = seen.filter((id) => id !== late);
    assert.equal(new Set(original).size, 25);
    assert.equal(original.length, 25);
  }),

  test("refuses a continuation token it did not issue", async ({ fresh }) => {
    const store = await fresh();
    const { form } = partitions();
    await store.create<Item>("submissions", form, { id: recordIds(1)[0] as string, n: 1 });
    await assert.rejects(
      store.query("submissions", form, { limit: 1, continuation: "not a token" }),
      StoreContinuationError,
    );
  }),

  test("deletes a whole partition and nothing else", async ({ fresh }) => {
    const store = await fresh();
    const { form, customer } = partitions();
    const ids = recordIds(5);
    for (const [n, id] of ids.entries()) await store.create<Item>("submissions", form, { id, n });
    const kept = ids[0] as string;
    await store.create<Item>("submissions", customer, { id: kept, n: 0 });
    assert.equal(await store.deletePartition("submissions", form), 5);
    assert.deepEqual((await store.query("submissions", form)).items, []);
    assert.equal(await store.get("submissions", form, kept), null);
    assert.ok(await store.get("submissions", customer, kept));
    assert.equal(await store.deletePartition("submissions", form), 0);
  }),
];

/** The cases of `Store.query` and `Store.deletePartition`. */
export function queryCases(options: StoreConformanceOptions): ConformanceCase[] {
  return cases.map(([name, body]) => storeCase(options, name, body));
}
