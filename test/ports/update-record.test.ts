import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { type Store, StoreConflictError } from "../../src/ports/index.ts";
import { conflictRetryDefaults, retryOnConflict, updateRecord } from "../../src/ports/kit.ts";

interface Tally {
  id: string;
  counts: Record<string, number>;
}

const where = ["tallies", "form_8c1d2f4e-5a6b-4c7d-9e0f-1a2b3c4d5e6f"] as const;
const id = "storage";
const fast = { baseDelayMs: 0, maxDelayMs: 0 };

/** A copy of `tally` with `name` counted once more. */
function plusOne(tally: Readonly<Tally> | null, name: string): Tally {
  const counts = { ...tally?.counts };
  counts[name] = (counts[name] ?? 0) + 1;
  return { id, counts };
}

/** Another writer's change, made straight on the store between a read and a write. */
async function racingWrite(store: Store, name: string): Promise<void> {
  const stored = await store.get<Tally>(...where, id);
  if (!stored) await store.create(...where, plusOne(null, name));
  else await store.replace(...where, plusOne(stored.record, name), { ifMatch: stored.etag });
}

describe("updateRecord", () => {
  it("applies a change again on top of a racing writer's, so that both survive", async () => {
    const store = createMemoryStore();
    await store.create(...where, { id, counts: { a: 1 } });
    const seen: (Tally | null)[] = [];
    const written = await updateRecord<Tally>(store, ...where, id, async (tally, attempt) => {
      seen.push(tally && structuredClone(tally));
      // The first attempt loses: another writer changes the record after it was read.
      if (attempt === 1) await racingWrite(store, "racer");
      return plusOne(tally, "mine");
    });
    assert.deepEqual(seen, [
      { id, counts: { a: 1 } },
      { id, counts: { a: 1, racer: 1 } },
    ]);
    assert.deepEqual(written?.record, { id, counts: { a: 1, racer: 1, mine: 1 } });
    const stored = await store.get<Tally>(...where, id);
    assert.deepEqual(stored, written);
  });

  it("creates the record when there is none, and retries a create that lost", async () => {
    const store = createMemoryStore();
    const written = await updateRecord<Tally>(store, ...where, id, async (tally, attempt) => {
      if (attempt === 1) await racingWrite(store, "racer");
      return plusOne(tally, "mine");
    });
    assert.deepEqual(written?.record, { id, counts: { racer: 1, mine: 1 } });
  });

  it("writes nothing when the change answers null, and answers the record as read", async () => {
    const store = createMemoryStore();
    assert.equal(await updateRecord<Tally>(store, ...where, id, () => null), null);
    assert.equal(await store.get(...where, id), null);
    const created = await store.create(...where, { id, counts: { a: 1 } });
    assert.deepEqual(await updateRecord<Tally>(store, ...where, id, () => null), created);
    assert.equal((await store.get(...where, id))?.etag, created.etag);
  });

  it("reads again when the record was deleted meanwhile, and lets the change decide", async () => {
    const store = createMemoryStore();
    await store.create(...where, { id, counts: { a: 1 } });
    const seen: (Tally | null)[] = [];
    const written = await updateRecord<Tally>(store, ...where, id, async (tally, attempt) => {
      seen.push(tally);
      if (attempt === 1) await store.delete(...where, id);
      return tally && plusOne(tally, "mine");
    });
    assert.equal(written, null);
    assert.equal(seen.length, 2);
    assert.equal(seen[1], null);
    assert.equal(await store.get(...where, id), null);
  });

  it("starts from a known record, and recovers from a stale one with one read", async () => {
    const store = createMemoryStore();
    const known = await store.create<Tally>(...where, { id, counts: { a: 1 } });
    let reads = 0;
    const get = store.get.bind(store);
    store.get = (...args) => {
      reads++;
      return get(...args);
    };
    await updateRecord<Tally>(store, ...where, id, (t) => plusOne(t, "b"), { known });
    assert.equal(reads, 0);
    // `known` is now stale: the write on its etag fails, and the record is read once.
    await updateRecord<Tally>(store, ...where, id, (t) => plusOne(t, "c"), { known });
    assert.equal(reads, 1);
    assert.deepEqual((await get<Tally>(...where, id))?.record.counts, { a: 1, b: 1, c: 1 });
  });

  it("gives up after the attempts allowed, having written only the racer's changes", async () => {
    const store = createMemoryStore();
    await store.create(...where, { id, counts: {} });
    let calls = 0;
    const losing = updateRecord<Tally>(
      store,
      ...where,
      id,
      async (tally) => {
        calls++;
        await racingWrite(store, "racer");
        return plusOne(tally, "mine");
      },
      { attempts: 4, ...fast },
    );
    await assert.rejects(losing, (error) => error instanceof StoreConflictError);
    assert.equal(calls, 4);
    assert.deepEqual((await store.get<Tally>(...where, id))?.record.counts, { racer: 4 });
  });

  it("does not retry other errors, and refuses a change that names another record", async () => {
    const store = createMemoryStore();
    let calls = 0;
    const failing = updateRecord<Tally>(store, ...where, id, () => {
      calls++;
      throw new RangeError("no");
    });
    await assert.rejects(failing, RangeError);
    assert.equal(calls, 1);
    const renamed = updateRecord<Tally>(store, ...where, id, () => ({ id: "other", counts: {} }));
    await assert.rejects(renamed, TypeError);
    assert.equal(await store.get(...where, "other"), null);
  });
});

describe("retryOnConflict", () => {
  it("follows the documented default of 20 attempts", async () => {
    assert.equal(conflictRetryDefaults.attempts, 20);
    let attempts = 0;
    const always = retryOnConflict(async () => {
      attempts++;
      throw new StoreConflictError("etag");
    });
    await assert.rejects(always, StoreConflictError);
    assert.equal(attempts, 20);
  });

  it("answers the first attempt that wins, and refuses a policy of no attempts", async () => {
    const answer = await retryOnConflict(
      async (attempt) => {
        if (attempt < 3) throw new StoreConflictError("exists");
        return attempt;
      },
      { attempts: 3, ...fast },
    );
    assert.equal(answer, 3);
    assert.throws(() => retryOnConflict(async () => 1, { attempts: 0 }), RangeError);
  });
});
