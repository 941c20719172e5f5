/** Store conformance: `batch`, all or nothing across collections and partitions. */
import assert from "node:assert/strict";
import { type BatchOp, StoreConflictError } from "../ports/index.ts";
import type { ConformanceCase } from "./conformance-case.ts";
import { partitions, recordId, recordIds } from "./real-ids.ts";
import {
  type Item,
  item,
  type StoreConformanceOptions,
  type StoreFixture,
  storeCase,
} from "./store-fixture.ts";

const failedWith = (reason: "etag" | "exists") => (error: unknown) =>
  error instanceof StoreConflictError && error.reason === reason;

/** A case of this file: its name and its body, made into a case per adapter below. */
type Def = [string, (fixture: StoreFixture) => Promise<void>];
const test = (name: string, body: Def[1]): Def => [name, body];

const cases: Def[] = [
  test("writes a batch across collections and partitions and returns each etag", async ({
    fresh,
  }) => {
    const store = await fresh();
    const { form, user } = partitions();
    const [a, b, gone] = recordIds(3);
    const kept = await store.create<Item>("submissions", form, item(a as string, 1));
    await store.create<Item>("datalists", user, item(gone as string, 2));
    const results = await store.batch([
      { op: "create", collection: "submissions", partition: user, record: item(b as string, 3) },
      {
        op: "replace",
        collection: "submissions",
        partition: form,
        record: item(a as string, 4),
        ifMatch: kept.etag,
      },
      { op: "delete", collection: "datalists", partition: user, id: gone as string },
    ]);
    assert.equal(results.length, 3);
    assert.deepEqual(results[0], await store.get("submissions", user, b as string));
    assert.deepEqual(results[1], await store.get("submissions", form, a as string));
    assert.equal((results[1]?.record as Item | undefined)?.n, 4);
    assert.equal(results[2], null);
    assert.equal(await store.get("datalists", user, gone as string), null);
  }),

  ...["one partition", "several partitions"].map((shape) =>
    test(`writes nothing of a batch with a failed condition (${shape})`, async ({ fresh }) => {
      const store = await fresh();
      const p = partitions().form;
      const other = shape === "one partition" ? p : partitions().customer;
      const [a, b, c, x] = recordIds(4) as [string, string, string, string];
      const first = await store.create<Item>("submissions", p, item(a, 1));
      await store.create<Item>("submissions", other, item(b, 2));
      await store.replace<Item>("submissions", p, item(a, 5));
      const before = await store.get<Item>("submissions", p, a);
      const at = (partition: string) => ({ collection: "submissions", partition });
      const attempts: ["etag" | "exists", BatchOp[]][] = [
        [
          "etag",
          [
            { op: "create", ...at(other), record: item(c, 3) },
            { op: "delete", ...at(other), id: b },
            { op: "replace", ...at(p), record: item(a, 9), ifMatch: first.etag },
          ],
        ],
        [
          "etag",
          [
            { op: "create", ...at(other), record: item(c, 3) },
            { op: "delete", ...at(p), id: a, ifMatch: first.etag },
          ],
        ],
        [
          "etag",
          [
            { op: "delete", ...at(other), id: b },
            { op: "replace", ...at(p), record: item(x, 0) },
          ],
        ],
        [
          "exists",
          [
            { op: "delete", ...at(other), id: b },
            { op: "create", ...at(p), record: item(a, 0) },
          ],
        ],
        // A record deleted meanwhile (S3's hold that the sweep removed) fails the batch.
        [
          "etag",
          [
            { op: "create", ...at(other), record: item(c, 3) },
            { op: "delete", ...at(p), id: x, ifMatch: first.etag },
          ],
        ],
      ];
      for (const [reason, ops] of attempts) {
        await assert.rejects(store.batch(ops), failedWith(reason));
        assert.deepEqual(await store.get<Item>("submissions", p, a), before);
        assert.equal((await store.get<Item>("submissions", other, b))?.record.n, 2);
        assert.equal(await store.get("submissions", other, c), null);
        assert.equal(await store.get("submissions", p, x), null);
      }
    }),
  ),

  test("puts back what a failed batch wrote, also from the record an op carries", async ({
    fresh,
  }) => {
    const store = await fresh();
    const { form, user } = partitions();
    const a = recordId();
    const first = await store.create<Item>("forms", form, item(a, 1));
    await store.replace<Item>("forms", form, item(a, 5));
    for (const write of ["replace", "delete", "patch", "patch read"] as const) {
      const b = await store.create<Item>("datalists", user, { ...item(recordId(), 2), tag: "k-4" });
      const carried = { ifMatch: b.etag, previous: b.record };
      const at = { collection: "datalists", partition: user };
      const token = { field: "tag", value: "k-4" };
      const undone: BatchOp = {
        replace: { op: "replace", ...at, record: item(b.record.id, 7), ...carried } as const,
        delete: { op: "delete", ...at, id: b.record.id, ...carried } as const,
        patch: {
          op: "patch",
          ...at,
          id: b.record.id,
          set: { n: 7 },
          token,
          previous: b.record,
        } as const,
        // Without the record: a store applying the batch op by op reads it to undo.
        "patch read": { op: "patch", ...at, id: b.record.id, set: { n: 7 }, token } as const,
      }[write];
      const stale: BatchOp = {
        op: "replace",
        collection: "forms",
        partition: form,
        record: item(a, 9),
        ifMatch: first.etag,
      };
      await assert.rejects(store.batch([undone, stale]), failedWith("etag"));
      assert.deepEqual((await store.get<Item>("datalists", user, b.record.id))?.record, b.record);
      assert.equal((await store.get<Item>("forms", form, a))?.record.n, 5);
    }
  }),

  test("patches a record on the token it holds, once, and takes the token away", async ({
    fresh,
  }) => {
    const store = await fresh();
    const { form, user } = partitions();
    const [a, b] = recordIds(2) as [string, string];
    const at = { collection: "attachments", partition: form };
    await store.create<Item>(at.collection, form, { ...item(a, 1), words: ["w"], tag: "k-1" });
    const patch: BatchOp = {
      op: "patch",
      ...at,
      id: a,
      set: { n: 2, nested: { x: 1 } },
      token: { field: "tag", value: "k-1" },
    };
    const created: BatchOp = {
      op: "create",
      collection: "submissions",
      partition: user,
      record: item(b, 3),
    };
    const [patched] = await store.batch([patch, created]);
    assert.deepEqual(patched, await store.get(at.collection, form, a));
    assert.deepEqual(patched?.record, { ...item(a, 2), words: ["w"], nested: { x: 1 } });
    // The token went with the first patch: the same one again fails and writes nothing.
    const again: BatchOp = { ...created, record: item(recordId(), 4) };
    await assert.rejects(store.batch([again, patch]), failedWith("etag"));
    assert.deepEqual(await store.get(at.collection, form, a), patched);
    assert.equal(await store.get("submissions", user, again.record.id), null);
  }),

  test("fails a patch whose record is missing or holds another token", async ({ fresh }) => {
    const store = await fresh();
    const { form, user } = partitions();
    const [a, b, missing] = recordIds(3) as [string, string, string];
    const kept = await store.create<Item>("attachments", form, { ...item(a, 1), tag: "k-2" });
    const patchOf = (id: string, value: string): BatchOp => ({
      op: "patch",
      collection: "attachments",
      partition: form,
      id,
      set: { n: 9 },
      token: { field: "tag", value },
    });
    for (const patch of [patchOf(a, "k-3"), patchOf(missing, "k-2")]) {
      const create: BatchOp = {
        op: "create",
        collection: "forms",
        partition: user,
        record: item(b, 0),
      };
      await assert.rejects(store.batch([create, patch]), failedWith("etag"));
      assert.equal(await store.get("forms", user, b), null);
      assert.deepEqual(await store.get("attachments", form, a), kept);
    }
    assert.equal(await store.get("attachments", form, missing), null);
  }),

  test("refuses a patch of a field or token no store can take as it is", async ({ fresh }) => {
    const store = await fresh();
    const { form } = partitions();
    const a = recordId();
    const kept = await store.create<Item>("attachments", form, { ...item(a, 1), tag: "k-5" });
    const patchOf = (set: Record<string, unknown>, field: string, value: string): BatchOp => ({
      op: "patch",
      collection: "attachments",
      partition: form,
      id: a,
      set,
      token: { field, value },
    });
    const refused = [
      patchOf({ id: "b" }, "tag", "k-5"),
      patchOf({ "n.x": 1 }, "tag", "k-5"),
      patchOf({ tag: "k-6" }, "tag", "k-5"),
      patchOf({}, "tag", "K-5"),
      patchOf({}, "tag", "k 5"),
      patchOf({}, "c laim", "k-5"),
      patchOf(Object.fromEntries([..."abcdefghij"].map((f) => [f, 1])), "tag", "k-5"),
    ];
    for (const patch of refused) await assert.rejects(store.batch([patch]), TypeError);
    assert.deepEqual(await store.get("attachments", form, a), kept);
  }),

  test("lets exactly one of many concurrent conditional batches win", async ({ fresh }) => {
    const store = await fresh();
    const { form } = partitions();
    const counter = await store.create<Item>("form_counters", form, item(form, 0));
    const outcomes = await Promise.allSettled(
      recordIds(8).map((id, i) =>
        store.batch([
          {
            op: "replace",
            collection: "form_counters",
            partition: form,
            record: item(form, 1),
            ifMatch: counter.etag,
          },
          { op: "create", collection: "submissions", partition: form, record: item(id, i) },
        ]),
      ),
    );
    const won = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
    assert.equal(won.length, 1);
    assert.equal((await store.query("submissions", form)).items.length, 1);
    // The losers took nothing back of the winner's write.
    assert.deepEqual(await store.get("form_counters", form, form), won[0]?.[0]);
  }),

  test("refuses a batch that writes one record twice", async ({ fresh }) => {
    const store = await fresh();
    const { form } = partitions();
    const record = item(recordId(), 1);
    const at = { collection: "submissions", partition: form };
    await assert.rejects(
      store.batch([
        { op: "create", ...at, record },
        { op: "replace", ...at, record },
      ]),
      TypeError,
    );
    assert.equal(await store.get("submissions", form, record.id), null);
  }),
];

/** The cases of `Store.batch`. */
export function batchCases(options: StoreConformanceOptions): ConformanceCase[] {
  return cases.map(([name, body]) => storeCase(options, name, body));
}
