/**
 * The Store contract as runner-neutral cases: every adapter runs them unchanged (see
 * `src/ports/store.ts`), under `node:test` through `runStoreConformance` of
 * `formwork/testing/node`, or under any runner by looping over the cases.
 */
import assert from "node:assert/strict";
import type { ConformanceCase } from "./conformance-case.ts";
import { partitions, recordId, recordIds } from "./real-ids.ts";
import { batchCases } from "./store-batch-cases.ts";
import { type Item, item, type StoreConformanceOptions, storeCase } from "./store-fixture.ts";
import { queryCases } from "./store-query-cases.ts";
import { recordCases } from "./store-record-cases.ts";
import { scanCases } from "./store-scan-cases.ts";

export type { StoreConformanceOptions } from "./store-fixture.ts";

/**
 * Every case of the Store conformance suite for the adapter `options` describes; the
 * durability case only with `reopen`, the persistence case only with `inspect`.
 */
export function storeConformanceCases(options: StoreConformanceOptions): ConformanceCase[] {
  return [
    ...recordCases(options),
    ...batchCases(options),
    ...queryCases(options),
    ...scanCases(options),
    ...(options.reopen ? [durabilityCase(options)] : []),
    ...(options.inspect ? [persistenceCase(options)] : []),
  ];
}

function durabilityCase(options: StoreConformanceOptions): ConformanceCase {
  return storeCase(options, "keeps every acknowledged write across a reopen", async (fixture) => {
    const store = await fixture.fresh();
    const p = [partitions().form, partitions().user, partitions().email];
    const at = (n: number) => p[n % 3] as string;
    const ids = recordIds(200);
    await Promise.all(ids.map((id, n) => store.create<Item>("submissions", at(n), { id, n })));
    const [b1, b2] = [recordId(), recordId()];
    await store.replace<Item>("submissions", at(0), { id: ids[0] as string, n: -1 });
    await store.delete("submissions", at(1), ids[1] as string);
    await store.deletePartition("submissions", at(2));
    await store.batch([
      { op: "create", collection: "submissions", partition: at(0), record: item(b1, 1) },
      { op: "delete", collection: "submissions", partition: at(1), id: ids[4] as string },
      { op: "create", collection: "datalists", partition: at(2), record: item(b2, 2) },
    ]);
    const again = await fixture.reopen(store);
    assert.equal((await again.get<Item>("submissions", at(0), ids[0] as string))?.record.n, -1);
    assert.equal(await again.get("submissions", at(1), ids[1] as string), null);
    assert.equal((await again.query("submissions", at(1))).items.length, 65);
    assert.equal((await again.query("submissions", at(2))).items.length, 0);
    assert.equal((await again.query("submissions", at(0))).items.length, 68);
    assert.equal((await again.get<Item>("datalists", at(2), b2))?.record.n, 2);
  });
}

function persistenceCase(options: StoreConformanceOptions): ConformanceCase {
  const inspect = options.inspect as NonNullable<StoreConformanceOptions["inspect"]>;
  return storeCase(options, "persists exactly the record that was written", async (fixture) => {
    const store = await fixture.fresh();
    const { form } = partitions();
    const record = { id: recordId(), n: 1, nested: { k: ["v"] } };
    await store.create<Item>("submissions", form, record);
    const raw = (await inspect(store, "submissions", form, record.id)) as Record<string, unknown>;
    // Adapters may keep bookkeeping beside the record (Cosmos `_etag`, `_ts`).
    assert.deepEqual(Object.fromEntries(Object.keys(record).map((k) => [k, raw[k]])), record);
    await store.delete("submissions", form, record.id);
    assert.equal(await inspect(store, "submissions", form, record.id), undefined);
  });
}
