import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import {
  type CosmosStoreOptions,
  createCosmosStore,
  indexingPolicyFor,
  serviceOrderFields,
  unindexedPaths,
} from "../../adapters/cosmos/index.ts";
import { withoutChanges } from "../../adapters/cosmos/undo.ts";
import {
  conditionFieldsOf,
  orderFieldsOf,
  serviceQueries,
} from "../../src/ports/service-queries.ts";
import type { Page, Store, StoreRecord } from "../../src/ports/store.ts";
import { runStoreConformance } from "../../src/testing/node-test.ts";
import { countKinds, startCosmosEmulator } from "../emulators/cosmos.ts";

const emulator = await startCosmosEmulator();
const client = emulator.client();
const databaseId = "conformance";
const containers = new WeakMap<Store, string>();

/** A store over a new container of its own, with indexes for the suite's order fields. */
function open(options: Partial<CosmosStoreOptions> = {}): Store {
  const containerId = `c-${randomUUID()}`;
  const store = createCosmosStore({
    client,
    databaseId,
    containerId,
    createIfMissing: true,
    orderFields: ["n", "tag"],
    ...options,
  });
  containers.set(store, containerId);
  return store;
}

/** The container of a store that `open` made. */
function containerOf(store: Store) {
  return client.database(databaseId).container(containers.get(store) as string);
}

/**
 * Reads the item as Cosmos DB holds it, bypassing the adapter. Its id is the record's after
 * the collection's name and a colon (documents.ts); the record's id is answered instead.
 */
async function inspect(store: Store, collection: string, partition: string, id: string) {
  const item = (await containerOf(store).item(`${collection}:${id}`, partition).read()).resource;
  if (!item) return undefined;
  assert.equal(item.id, `${collection}:${id}`);
  return { ...item, id };
}

runStoreConformance({ name: "cosmos", create: () => open(), inspect });

interface Row extends StoreRecord {
  n: number;
  created_date_utc?: string;
}

describe("cosmos store", () => {
  it("writes a batch of one partition key as one transactional batch, etags returned", async () => {
    const store = open();
    const kept = await store.create<Row>("things", "p", { id: "a", n: 1 });
    await store.create<Row>("things", "p", { id: "gone", n: 2 });
    const a: Row = { id: "a", n: 4 };
    const b: Row = { id: "b", n: 3 };
    const results = await store.batch([
      { op: "create", collection: "things", partition: "p", record: b },
      { op: "replace", collection: "things", partition: "p", record: a, ifMatch: kept.etag },
      { op: "delete", collection: "things", partition: "p", id: "gone" },
    ]);
    assert.deepEqual(results[0], await store.get("things", "p", "b"));
    assert.deepEqual(results[1], await store.get("things", "p", "a"));
    assert.equal(results[2], null);
    assert.equal(await store.get("things", "p", "gone"), null);
    // A stale condition is a conflict.
    await assert.rejects(
      store.batch([
        { op: "replace", collection: "things", partition: "p", record: a, ifMatch: kept.etag },
      ]),
      (error: Error) => error.name === "StoreConflictError",
    );
    await store.close();
  });

  it("writes a batch too large for one request with its intent, the intent first", async () => {
    const store = open();
    const counter = await store.create<Row>("counters", "form", { id: "form", n: 1 });
    // Random text does not compress: the intent holds the delivery's whole copy.
    const big = randomBytes(700_000).toString("base64");
    const submission = { id: "s", n: 0, values: big };
    const raised: Row = { id: "form", n: 2 };
    emulator.requests.length = 0;
    await store.batch([
      {
        op: "replace",
        collection: "counters",
        partition: "form",
        record: raised,
        ifMatch: counter.etag,
      },
      { op: "create", collection: "submissions", partition: "form", record: submission },
      {
        op: "create",
        collection: "deliveries",
        partition: "hook",
        record: { ...submission, id: "d" },
      },
    ]);
    // The intent alone, the commit with its marker, the delivery.
    assert.equal(countKinds(emulator.requests).batch, 3);
    assert.equal((await store.get<Row>("counters", "form", "form"))?.record.n, 2);
    assert.equal((await store.get<Row>("deliveries", "hook", "d"))?.record.n, 0);
    await store.close();
    const { resources } = await containerOf(store)
      .items.query({ query: 'SELECT VALUE COUNT(1) FROM c WHERE STARTSWITH(c.coll, "~")' })
      .fetchAll();
    assert.deepEqual(resources, [0], "the intent and its marker are removed");
  });

  it("takes a write's own changes out of a record others wrote since", () => {
    const before = { id: "q", counts: { used: 10, files: 2 }, list: ["a"], note: "x" };
    const after = { id: "q", counts: { used: 11, files: 2 }, list: ["a", "b"], note: "y" };
    // Nobody wrote since: back to before.
    assert.deepEqual(withoutChanges(after, after, before), before);
    // Raised again since: the raise stays; given back since: the write still comes off.
    const raised = { ...after, counts: { used: 12, files: 3 } };
    assert.deepEqual(withoutChanges(raised, after, before), {
      ...before,
      counts: { used: 11, files: 3 },
    });
    const givenBack = { ...after, counts: { used: 10, files: 2 } };
    assert.deepEqual(withoutChanges(givenBack, after, before), {
      ...before,
      counts: { used: 9, files: 2 },
    });
    // A value another writer changed since stays theirs; a field the write added goes.
    const changed = { ...after, list: ["c"], extra: 1 };
    assert.deepEqual(withoutChanges(changed, { ...after, extra: 1 }, before), {
      ...before,
      list: ["c"],
      note: "x",
    });
  });

  it("keeps ids Cosmos DB refuses, and returns them as written", async () => {
    const store = open();
    const ids = ["a/b@example.com", "back\\slash", "q?x#y", "100%", "", "trailing ", "~b64~x"];
    for (const [n, id] of ids.entries()) await store.create<Row>("emails", "p", { id, n });
    for (const [n, id] of ids.entries()) {
      assert.equal((await store.get<Row>("emails", "p", id))?.record.n, n, id);
    }
    const listed = (await store.query<Row>("emails", "p")).items.map((r) => r.record.id);
    assert.deepEqual(new Set(listed), new Set(ids));
    const eq = await store.query<Row>("emails", "p", {
      where: [{ field: "id", op: "eq", value: "a/b@example.com" }],
    });
    assert.deepEqual(
      eq.items.map((r) => r.record.n),
      [0],
    );
    assert.equal(await store.delete("emails", "p", "q?x#y"), true);
    await store.close();
  });

  it("strips the system fields and the partition key from what it returns", async () => {
    const store = open();
    const created = await store.create<Row>("things", "p", { id: "a", n: 1 });
    const read = await store.get<Row>("things", "p", "a");
    const listed = await store.query<Row>("things", "p");
    assert.equal(listed.items[0]?.etag, created.etag);
    for (const record of [created.record, read?.record, listed.items[0]?.record]) {
      assert.deepEqual(record, { id: "a", n: 1 });
    }
    const raw = (await inspect(store, "things", "p", "a")) as Record<string, unknown>;
    assert.equal(raw.pk, "p");
    assert.equal(raw.coll, "things");
    assert.equal(raw._etag, created.etag);
  });

  it("pages in the service's orders with its composite indexes", async () => {
    const store = open({ orderFields: undefined });
    for (let n = 0; n < 7; n++) {
      const created_date_utc = `2026-11-0${1 + (n % 3)}T00:00:00.000Z`;
      await store.create<Row>("submissions", "form", { id: `s${n}`, n, created_date_utc });
    }
    const ids: string[] = [];
    let continuation: string | null = null;
    do {
      const page: Page<Row> = await store.query<Row>("submissions", "form", {
        orderBy: { field: "created_date_utc", direction: "desc" },
        limit: 3,
        continuation,
      });
      ids.push(...page.items.map((r) => r.record.id));
      continuation = page.continuation;
    } while (continuation);
    assert.deepEqual(ids, ["s2", "s5", "s1", "s4", "s0", "s3", "s6"]);
  });

  it("says which index is missing when a query orders by a field without one", async () => {
    const store = open({ orderFields: [] });
    await store.create<Row>("things", "p", { id: "a", n: 1 });
    await assert.rejects(store.query("things", "p", { orderBy: { field: "n" } }), (error: Error) =>
      /^cosmos store: query failed: no composite index/.test(error.message),
    );
  });

  it("refuses a token of another query or partition, and fields it cannot name", async () => {
    const store = open();
    for (let n = 0; n < 3; n++) await store.create<Row>("things", "p", { id: `r${n}`, n });
    const first = await store.query<Row>("things", "p", { limit: 1 });
    assert.ok(first.continuation);
    const { continuation } = first;
    await assert.rejects(store.query("things", "q", { limit: 1, continuation }), {
      name: "StoreContinuationError",
    });
    await assert.rejects(
      store.query("things", "p", { limit: 1, continuation, orderBy: { field: "n" } }),
      { name: "StoreContinuationError" },
    );
    const bad = { where: [{ field: 'n"] OR 1=1 --', op: "eq" as const, value: 1 }] };
    await assert.rejects(store.query("things", "p", bad), TypeError);
    await assert.rejects(store.create("bad/name", "p", { id: "x" }), TypeError);
    await assert.rejects(store.create("things", "p", { id: "x", pk: "y" }), TypeError);
    await assert.rejects(store.create("things", "p", { id: "x", coll: "y" }), TypeError);
  });

  it("deletes a partition larger than one batch", async () => {
    const store = open();
    // 23 rounds of 10: 230 requests at once made the stand-in drop connections on a busy
    // machine (a 503 here, seen in full runs), which is not what this test is about.
    for (let round = 0; round < 23; round++) {
      await Promise.all(
        Array.from({ length: 10 }, (_, k) => {
          const n = round * 10 + k;
          return store.create<Row>("big", "p", { id: `r${n}`, n });
        }),
      );
    }
    await store.create<Row>("big", "other", { id: "r0", n: 0 });
    emulator.requests.length = 0;
    assert.equal(await store.deletePartition("big", "p"), 230);
    // Three pages of ids (no query plan: query-plan.ts), and one batch per page.
    assert.deepEqual(countKinds(emulator.requests), { query: 3, batch: 3 });
    assert.deepEqual((await store.query("big", "p")).items, []);
    assert.ok(await store.get("big", "other", "r0"));
  });

  it("deletes item by item when an item vanishes under a batch", async () => {
    const store = open();
    for (let n = 0; n < 5; n++) await store.create<Row>("race", "p", { id: `r${n}`, n });
    emulator.before("batch", () => store.delete("race", "p", "r2"));
    emulator.requests.length = 0;
    assert.equal(await store.deletePartition("race", "p"), 4);
    const { delete: deletes, ...rest } = countKinds(emulator.requests);
    assert.deepEqual(rest, { query: 1, batch: 1 });
    // The test's own delete of r2, then the four others one by one: the batch failed on r2
    // and, as on Cosmos DB, deleted none (examples/azure/atomic-batches.ts).
    assert.equal(deletes, 5);
    assert.deepEqual((await store.query("race", "p")).items, []);
  });

  it("has composite indexes for every field the service orders by", async () => {
    const root = join(import.meta.dirname, "../../src");
    // The conformance suite under src/testing orders by its own fields (see `open` above).
    const files = (await readdir(root, { recursive: true })).filter(
      (f) => f.endsWith(".ts") && !f.startsWith("testing"),
    );
    const fields = new Set<string>();
    for (const file of files) {
      const source = await readFile(join(root, file), "utf8");
      for (const [, field] of source.matchAll(/orderBy:\s*\{\s*field:\s*([^,}\s]+)/g)) {
        const literal = /^"([^"]+)"$/.exec(field ?? "")?.[1];
        assert.ok(literal, `${file} orders by ${field}: use a literal the index list can name`);
        fields.add(literal);
      }
    }
    const missing = [...fields].filter((field) => !serviceOrderFields.includes(field));
    assert.deepEqual(missing, [], "add these to serviceQueries in src/ports/service-queries.ts");
    const policy = indexingPolicyFor();
    for (const field of serviceOrderFields) {
      const composites = (policy.compositeIndexes ?? []).filter((c) => c[0]?.path === `/${field}`);
      assert.deepEqual(
        composites.map((c) => c.map(({ order }) => order)),
        [
          ["ascending", "ascending"],
          ["descending", "ascending"],
        ],
        field,
      );
    }
  });

  it("leaves in the index every field the service's queries filter or order on", () => {
    const queried = [...conditionFieldsOf(serviceQueries), ...orderFieldsOf(serviceQueries)];
    for (const field of queried) {
      const dropped = unindexedPaths.filter((path) => path.startsWith(`/${field}/`));
      assert.deepEqual(dropped, [], field);
    }
  });
});
