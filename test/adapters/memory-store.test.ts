import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { StoreRecord } from "../../src/ports/store.ts";
import { runStoreConformance } from "../../src/testing/node-test.ts";

runStoreConformance({ name: "memory", create: () => createMemoryStore({ freezeWrites: true }) });
runStoreConformance({ name: "memory, writes not frozen", create: () => createMemoryStore() });

describe("memory store: the ownership rule of the Store port", () => {
  it("with freezeWrites, refuses a change to a record once it is given to a write, or returned by one", async () => {
    const store = createMemoryStore({ freezeWrites: true });
    const record = { id: "a", words: ["x"] };
    const created = await store.create("things", "p", record);
    // Strict mode (ES modules): changing a frozen record throws instead of passing silently.
    assert.throws(() => record.words.push("input"), TypeError);
    assert.throws(() => (created.record as { words: string[] }).words.push("out"), TypeError);
    const replacement: StoreRecord = Object.assign({ id: "a" }, { words: ["y"] });
    const [batched] = await store.batch([
      { op: "replace", collection: "things", partition: "p", record: replacement },
    ]);
    assert.throws(() => Object.assign(batched?.record ?? {}, { words: [] }), TypeError);
    assert.deepEqual((await store.get("things", "p", "a"))?.record, { id: "a", words: ["y"] });
  });
});
