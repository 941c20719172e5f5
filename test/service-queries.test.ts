/**
 * `serviceQueries` (src/ports/service-queries.ts) names real collections, and the check the
 * test services run every query through (`service-queries-only.ts`) refuses what it lacks.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../adapters/memory/index.ts";
import { collections } from "../src/domain/records/collections.ts";
import { isServiceQuery, serviceQueries } from "../src/ports/service-queries.ts";
import { serviceQueriesOnly } from "./service-queries-only.ts";

describe("serviceQueries", () => {
  it("names only collections the service stores under", () => {
    const known = new Set<string>(Object.values(collections));
    assert.deepEqual(
      Object.keys(serviceQueries).filter((name) => !known.has(name)),
      [],
    );
  });

  it("accepts a listed shape with any subset of its conditions, in either direction", () => {
    const date = { field: "created_date_utc", op: "gte", value: "2026-01-01" } as const;
    const word = { field: "search_words", op: "contains", value: "ada" } as const;
    const orderBy = { field: "created_date_utc", direction: "desc" } as const;
    assert.ok(isServiceQuery("submissions", { orderBy }));
    assert.ok(isServiceQuery("submissions", { where: [date, word], orderBy }));
    assert.ok(isServiceQuery("form_users"));
    assert.ok(isServiceQuery("datalist_entries", { orderBy: { field: "sort_order" } }));
  });

  it("refuses another field, operator, order or collection", () => {
    const orderBy = { field: "created_date_utc" } as const;
    const eqWord = { field: "search_words", op: "eq", value: "ada" } as const;
    const status = { field: "status", op: "eq", value: "x" } as const;
    assert.equal(isServiceQuery("submissions", { where: [eqWord], orderBy }), false);
    assert.equal(isServiceQuery("submissions", { where: [status], orderBy }), false);
    assert.equal(isServiceQuery("customers"), false);
    assert.equal(isServiceQuery("forms"), false);
    assert.equal(isServiceQuery("datalist_entries", { orderBy }), false);
  });

  it("makes the test stores throw on a query outside the list", async () => {
    const store = serviceQueriesOnly(createMemoryStore());
    await assert.rejects(store.query("forms", "f"), /outside serviceQueries/);
    assert.deepEqual((await store.query("form_users", "f")).items, []);
  });
});
