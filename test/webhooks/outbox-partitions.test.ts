/**
 * The outbox spread over partitions (src/domain/webhooks/outbox-partitions.ts): three service
 * instances on one store deliver every entry once, entries left in the pre-upgrade `due`
 * partition are delivered too, and a read serves every partition in turn.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { Context } from "../../src/domain/context.ts";
import { dueCandidates } from "../../src/domain/webhooks/outbox-claims.ts";
import {
  legacyOutboxPartition,
  outboxPartitionCount,
  outboxPartitionOf,
  outboxPartitions,
} from "../../src/domain/webhooks/outbox-partitions.ts";
import type { DeliveryRecord, OutboxEntry } from "../../src/domain/webhooks/webhook-outbox.ts";
import { newId } from "../../src/kernel/ids.ts";
import type { Store } from "../../src/ports/store.ts";
import { storeKinds } from "../store-kinds.ts";
import { eventually, startReceiver } from "./receiver.ts";
import { formWithHook, webhookService } from "./setup.ts";

/** A store several services share, as instances over one database would; closed once. */
function shared(store: Store): Store {
  return new Proxy(store, {
    get(target, property) {
      if (property === "close") return async () => {};
      const value = Reflect.get(target, property, target);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
}

/** Every entry of every outbox partition, with the partition it is in. */
async function outbox(store: Store) {
  const entries: { partition: string; entry: OutboxEntry }[] = [];
  for (const partition of outboxPartitions) {
    const { items } = await store.query<OutboxEntry>("webhook_outbox", partition);
    for (const { record } of items) entries.push({ partition, entry: record });
  }
  return entries;
}

/** Moves an entry back to the one partition the outbox had before it was spread. */
async function moveToLegacy(store: Store, partition: string, entry: OutboxEntry) {
  await store.delete("webhook_outbox", partition, entry.id);
  await store.create("webhook_outbox", legacyOutboxPartition, entry);
}

const stores = storeKinds("memory", "lowdb", "cosmos");

describe("the outbox over several partitions", () => {
  for (const [kind, create] of stores) {
    it(`three instances deliver every entry once, old ones too (${kind})`, {
      timeout: 120_000,
    }, async () => {
      const store = await create();
      const receiver = await startReceiver([200]);
      // No worker on the instance that queues: the entries wait until the three start.
      const queuing = webhookService({ store: shared(store), pollMs: 0 });
      const { submit, webhookId } = await formWithHook(queuing, receiver.url);
      const posts = 30;
      for (let n = 0; n < posts; n++) assert.equal((await submit(`person ${n}`)).status, 200);
      await queuing.close();
      const queued = await outbox(store);
      assert.equal(queued.length, posts);
      const used = new Set(queued.map(({ partition }) => partition));
      assert.ok(used.size >= 4, `30 entries in ${used.size} partitions`);
      assert.ok(!used.has(legacyOutboxPartition), "nothing new goes to the old partition");
      for (const { partition, entry } of queued.slice(0, 5)) {
        await moveToLegacy(store, partition, entry);
      }
      // A generous send timeout: on a loaded machine a 2 s one retries a slow answer, a
      // second send that is the sender's at-least-once, not a claim taken twice.
      const instances = [0, 1, 2].map(() =>
        webhookService({ store: shared(store), pollMs: 10, timeoutMs: 30_000 }),
      );
      try {
        await receiver.waitFor(posts, 60_000);
        await eventually(async () => (await outbox(store)).length === 0, 30_000);
        await new Promise((resolve) => setTimeout(resolve, 200));
      } finally {
        // Before the store and the emulator, which `after` would stop first.
        await Promise.all(instances.map((instance) => instance.close()));
      }
      const ids = receiver.received.map((r) => String(r.headers["webhook-id"]));
      assert.equal(ids.length, posts, "each message sent once");
      assert.equal(new Set(ids).size, posts);
      const { items } = await store.query<DeliveryRecord>("webhook_deliveries", webhookId);
      assert.equal(items.length, posts);
      for (const { record: delivery } of items) {
        assert.equal(delivery.status, "delivered");
        assert.equal(delivery.attempts.length, 1);
      }
      await store.close();
    });
  }

  it("puts each delivery in one of 16 partitions, the same every time", () => {
    const seen = new Set<string>();
    for (let n = 0; n < 1000; n++) {
      const id = newId();
      const partition = outboxPartitionOf(id);
      assert.equal(outboxPartitionOf(id), partition);
      seen.add(partition);
    }
    assert.equal(seen.size, outboxPartitionCount);
    assert.equal(outboxPartitionOf("0199a0c4-0000-7000-8000-000000000000"), "due-5");
  });

  it("reads every partition in turn, so a backlog in one starves no other", async () => {
    const store = createMemoryStore();
    const entry = (id: string): OutboxEntry => ({
      id,
      form_id: "f",
      webhook_id: "w",
      due_at: new Date(0).toISOString(),
      lease_owner: null,
      attempts_made: 0,
    });
    for (let n = 0; n < 20; n++)
      await store.create("webhook_outbox", "due-3", entry(`a${String(n).padStart(2, "0")}`));
    await store.create("webhook_outbox", "due-9", entry("b"));
    await store.create("webhook_outbox", legacyOutboxPartition, entry("old"));
    const ctx = { store, now: () => new Date() } as Context;
    const first = await dueCandidates(ctx, 4, 0);
    assert.deepEqual(
      first.map(({ entry }) => entry.record.id),
      ["a00", "b", "old", "a01", "a02", "a03"],
    );
    const rotated = await dueCandidates(ctx, 2, 5);
    assert.deepEqual(
      rotated.map(({ partition }) => partition),
      ["due-9", legacyOutboxPartition, "due-3", "due-3"],
    );
  });
});
