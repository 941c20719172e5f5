/**
 * Leases that follow the instance: a claim is renewed while its instance works on it, so a
 * slow receiver is never sent the same attempt by a second instance, and a dead instance's
 * claims are taken over within about one lease. The tests assert who sent what and what
 * was recorded, with generous time limits, never how fast.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { OutboxEntry } from "../../src/domain/webhooks/webhook-outbox.ts";
import { outboxPartitionOf } from "../../src/domain/webhooks/webhook-outbox.ts";
import type { FormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/store.ts";
import { request } from "../helpers.ts";
import { eventually, startReceiver } from "./receiver.ts";
import { formWithHook, sharedStore, webhookService } from "./setup.ts";

/** A fresh store, and what removes it once every service on it is closed. */
type StoreMaker = () => Promise<{ store: Store; remove(): Promise<void> }>;

const stores: [string, StoreMaker][] = [
  ["memory", async () => ({ store: createMemoryStore(), remove: async () => {} })],
  [
    "lowdb",
    async () => {
      const directory = await mkdtemp(join(tmpdir(), "formwork-leases-"));
      const store = createLowdbStore({ directory });
      const remove = async () => {
        await store.close();
        await rm(directory, { recursive: true, force: true });
      };
      return { store, remove };
    },
  ],
];

/** Closes `services`, then removes their store. */
function closeAll(services: FormService[], remove: () => Promise<void>) {
  after(async () => {
    await Promise.all(services.map((service) => service.close()));
    await remove();
  });
}

/**
 * `store` as one instance sees it, until `kill()`: from then on no call of that instance
 * reaches the store or ever settles, as if its process were gone (kill -9). It renews
 * nothing, records nothing and hands nothing back.
 */
function killable(store: Store) {
  let dead = false;
  const never = new Promise<never>(() => {});
  const calls = Object.entries(sharedStore(store)).map(([name, call]) => [
    name,
    (...args: unknown[]) => (dead ? never : (call as (...a: unknown[]) => unknown)(...args)),
  ]);
  return {
    store: Object.fromEntries(calls) as Store,
    kill: () => {
      dead = true;
    },
  };
}

/**
 * A form with a webhook to `url` on `service`, a submit, and the webhook's deliveries as
 * listed through `service` or another instance (`via`).
 */
async function hookOn(service: FormService, url: string) {
  const form = await formWithHook(service, url);
  const path = `/api/restricted/form/${form.formId}/submissionwebhook/${form.webhookId}/deliveries`;
  const deliveries = async (via = service) =>
    (await request(via, "GET", path, { as: form.alice })).body.results;
  return { ...form, deliveries };
}

const attemptsOf = (delivery: { attempts: { attempt: number; status_code?: number }[] }) =>
  delivery.attempts.map(({ attempt, status_code }) => ({ attempt, status_code }));

for (const [name, make] of stores) {
  describe(`webhook leases (${name} store)`, () => {
    it("hands a dead instance's delivery to another within about one lease", async () => {
      const receiver = await startReceiver(["hang", 200]);
      const { store, remove } = await make();
      const dying = killable(store);
      const first = webhookService({ store: dying.store, pollMs: 20, leaseMs: 300 });
      const { submit, deliveries } = await hookOn(first, receiver.url);
      await submit("Ada");
      await receiver.waitFor(1);
      // Killed with its attempt in flight: no close, no hand-back, no renewal.
      dying.kill();
      const survivor = webhookService({ store: sharedStore(store), pollMs: 20, leaseMs: 300 });
      // The dead instance is never closed: it would wait for ever on its store.
      closeAll([survivor], remove);
      // A few seconds at most: the dead instance's lease, not a long default, holds it back.
      await receiver.waitFor(2, 5000);
      const [lost, again] = receiver.received;
      assert.equal(again?.headers["webhook-id"], lost?.headers["webhook-id"]);
      await eventually(async () => (await deliveries(survivor))[0]?.status === "delivered");
      // The dead instance never recorded its attempt; the survivor counted on from it.
      const [delivery] = await deliveries(survivor);
      assert.deepEqual(attemptsOf(delivery), [{ attempt: 2, status_code: 200 }]);
      assert.equal(receiver.received.length, 2);
    });

    it("sends a receiver slower than several leases each attempt once", async () => {
      const receiver = await startReceiver([{ status: 200, delayMs: 2000 }]);
      const { store, remove } = await make();
      const options = { pollMs: 20, leaseMs: 400, timeoutMs: 10_000 };
      const instances = [0, 1].map(() => webhookService({ store: sharedStore(store), ...options }));
      closeAll(instances, remove);
      const { submit, deliveries } = await hookOn(instances[0] as FormService, receiver.url);
      await submit("Ada");
      await eventually(async () => (await deliveries())[0]?.status === "delivered");
      // A few more leases, for a second send that should not come to show itself.
      await sleep(1000);
      assert.equal(receiver.received.length, 1);
      assert.deepEqual(attemptsOf((await deliveries())[0]), [{ attempt: 1, status_code: 200 }]);
    });

    it("leaves a delivery whose claim was taken over to its new holder", async () => {
      const receiver = await startReceiver([{ status: 200, delayMs: 1000 }]);
      const { store, remove } = await make();
      const service = webhookService({ store: sharedStore(store), pollMs: 20, leaseMs: 300 });
      closeAll([service], remove);
      const { submit, webhookId, deliveries } = await hookOn(service, receiver.url);
      await submit("Ada");
      await receiver.waitFor(1);
      // Another instance takes the entry, as it would from an instance stalled past its lease.
      const { items } = await store.query<{ id: string }>("webhook_deliveries", webhookId);
      const id = items[0]?.record.id as string;
      const partition = outboxPartitionOf(id);
      const held = await store.get<OutboxEntry>("webhook_outbox", partition, id);
      assert.ok(held);
      const dueAt = new Date(Date.now() + 3_600_000).toISOString();
      await store.replace("webhook_outbox", partition, {
        ...held.record,
        lease_owner: "another instance",
        due_at: dueAt,
      });
      // The attempt in flight still ends with a 200: it is logged, as it was made ...
      await eventually(async () => (await deliveries())[0]?.attempts.length === 1);
      await sleep(300);
      const [delivery] = await deliveries();
      assert.deepEqual(attemptsOf(delivery), [{ attempt: 1, status_code: 200 }]);
      // ... but the outcome and the entry are the new holder's to write.
      assert.equal(delivery.status, "pending");
      const entry = await store.get<OutboxEntry>("webhook_outbox", partition, id);
      assert.equal(entry?.record.lease_owner, "another instance");
      assert.equal(receiver.received.length, 1);
    });
  });
}
