/** Store conformance: one record at a time (`get`, `create`, `replace`, `delete`). */
import assert from "node:assert/strict";
import { StoreConflictError } from "../ports/index.ts";
import type { ConformanceCase } from "./conformance-case.ts";
import { partitions, recordId } from "./real-ids.ts";
import {
  type Item,
  type StoreConformanceOptions,
  type StoreFixture,
  storeCase,
} from "./store-fixture.ts";

const stale = (error: unknown) => error instanceof StoreConflictError && error.reason === "etag";

/** A case of this file: its name and its body, made into a case per adapter below. */
type Def = [string, (fixture: StoreFixture) => Promise<void>];
const test = (name: string, body: Def[1]): Def => [name, body];

const cases: Def[] = [
  test("returns null for a record that is not there", async ({ fresh }) => {
    const store = await fresh();
    assert.equal(await store.get("submissions", partitions().form, recordId()), null);
  }),

  test("creates and reads back a record with its etag, values intact", async ({ fresh }) => {
    const store = await fresh();
    const { form } = partitions();
    const record = {
      id: recordId(),
      n: 1.5,
      tag: "ünïcödé ✓",
      words: ["x", "y"],
      nested: { deep: [1, null, true, { s: "" }] },
    };
    const created = await store.create<Item>("submissions", form, record);
    assert.deepEqual(created.record, record);
    assert.equal(typeof created.etag, "string");
    assert.deepEqual(await store.get<Item>("submissions", form, record.id), created);
  }),

  test("keeps ids of every real shape: GUIDs, user ids, e-mail addresses", async ({ fresh }) => {
    const store = await fresh();
    const { user, email, customer } = partitions();
    const ids = [recordId(), user, customer, email.slice("email:".length), "a/b?c#d%e@x.org "];
    for (const [n, id] of ids.entries()) await store.create<Item>("accounts", email, { id, n });
    for (const [n, id] of ids.entries()) {
      assert.equal((await store.get<Item>("accounts", email, id))?.record.n, n, id);
    }
    const { items } = await store.query<Item>("accounts", email);
    assert.deepEqual(items.map(({ record }) => record.id).sort(), [...ids].sort());
  }),

  test("keeps collections and partitions apart", async ({ fresh }) => {
    const store = await fresh();
    const [p1, p2, p3] = [partitions().form, partitions().user, partitions().email];
    const id = recordId();
    await store.create<Item>("submissions", p1, { id, n: 1 });
    await store.create<Item>("submissions", p2, { id, n: 2 });
    await store.create<Item>("form_users", p1, { id, n: 3 });
    assert.equal((await store.get<Item>("submissions", p1, id))?.record.n, 1);
    assert.equal((await store.get<Item>("submissions", p2, id))?.record.n, 2);
    assert.equal((await store.get<Item>("form_users", p1, id))?.record.n, 3);
    assert.equal(await store.get("submissions", p3, id), null);
  }),

  test("refuses to create an id twice and keeps the first", async ({ fresh }) => {
    const store = await fresh();
    const { form } = partitions();
    const id = recordId();
    await store.create<Item>("submissions", form, { id, n: 1 });
    await assert.rejects(
      store.create<Item>("submissions", form, { id, n: 2 }),
      (error) => error instanceof StoreConflictError && error.reason === "exists",
    );
    assert.equal((await store.get<Item>("submissions", form, id))?.record.n, 1);
  }),

  test("lets exactly one of many concurrent creates of one id win", async ({ fresh }) => {
    const store = await fresh();
    const { user } = partitions();
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, n) => store.create<Item>("accounts", user, { id: user, n })),
    );
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    for (const r of results) {
      if (r.status === "rejected") assert.ok(r.reason instanceof StoreConflictError);
    }
  }),

  test("does not let callers change stored records through what they read", async ({ fresh }) => {
    const store = await fresh();
    const { form } = partitions();
    const id = recordId();
    // What a write is given and returns is the store's (the port's ownership rule); what
    // a read returns is the caller's own to change.
    await store.create<Item>("submissions", form, { id, n: 1, words: ["x"] });
    const read = await store.get<Item>("submissions", form, id);
    read?.record.words?.push("read");
    const { items } = await store.query<Item>("submissions", form);
    items[0]?.record.words?.push("queried");
    assert.deepEqual((await store.get<Item>("submissions", form, id))?.record.words, ["x"]);
  }),

  test("replaces a record, changes its etag, and answers null for a missing one", async ({
    fresh,
  }) => {
    const store = await fresh();
    const { form } = partitions();
    const [id, missing] = [recordId(), recordId()];
    const first = await store.create<Item>("submissions", form, { id, n: 1 });
    const second = await store.replace<Item>(
      "submissions",
      form,
      { id, n: 2 },
      { ifMatch: first.etag },
    );
    assert.ok(second);
    assert.notEqual(second.etag, first.etag);
    assert.deepEqual(await store.get("submissions", form, id), second);
    const third = await store.replace<Item>("submissions", form, { id, n: 3 });
    assert.equal(third?.record.n, 3);
    assert.equal(await store.replace<Item>("submissions", form, { id: missing, n: 1 }), null);
    assert.equal(await store.get("submissions", form, missing), null);
  }),

  test("refuses a replace or delete with a stale etag and keeps the record", async ({ fresh }) => {
    const store = await fresh();
    const { form } = partitions();
    const id = recordId();
    const first = await store.create<Item>("submissions", form, { id, n: 1 });
    await store.replace<Item>("submissions", form, { id, n: 2 });
    await assert.rejects(
      store.replace<Item>("submissions", form, { id, n: 3 }, { ifMatch: first.etag }),
      stale,
    );
    await assert.rejects(store.delete("submissions", form, id, { ifMatch: first.etag }), stale);
    assert.equal((await store.get<Item>("submissions", form, id))?.record.n, 2);
  }),

  test("lets exactly one of many concurrent conditional replaces win", async ({ fresh }) => {
    const store = await fresh();
    const { form } = partitions();
    const { etag } = await store.create<Item>("form_counters", form, { id: form, n: 0 });
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, n) =>
        store.replace<Item>("form_counters", form, { id: form, n: n + 1 }, { ifMatch: etag }),
      ),
    );
    const won = results.filter((r) => r.status === "fulfilled");
    assert.equal(won.length, 1);
    const winner = (won[0] as PromiseFulfilledResult<{ record: Item } | null>).value;
    assert.equal((await store.get<Item>("form_counters", form, form))?.record.n, winner?.record.n);
  }),

  test("deletes a record and answers false for a missing one", async ({ fresh }) => {
    const store = await fresh();
    const { form } = partitions();
    const id = recordId();
    const { etag } = await store.create<Item>("submissions", form, { id, n: 1 });
    assert.equal(await store.delete("submissions", form, id, { ifMatch: etag }), true);
    assert.equal(await store.get("submissions", form, id), null);
    assert.equal(await store.delete("submissions", form, id), false);
    await store.create<Item>("submissions", form, { id, n: 2 });
    assert.equal((await store.get<Item>("submissions", form, id))?.record.n, 2);
  }),
];

/** The cases on single records. */
export function recordCases(options: StoreConformanceOptions): ConformanceCase[] {
  return cases.map(([name, body]) => storeCase(options, name, body));
}
