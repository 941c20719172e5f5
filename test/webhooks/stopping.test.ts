import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { setImmediate } from "node:timers/promises";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { collections } from "../../src/domain/records/collections.ts";
import { outboxPartitions } from "../../src/domain/webhooks/outbox-partitions.ts";
import type { OutboxEntry } from "../../src/domain/webhooks/webhook-outbox.ts";
import { createFormService, createHttpWebhookSender } from "../../src/index.ts";
import { type HoldMatch, heldStore } from "../held-store.ts";
import { startReceiver } from "./receiver.ts";
import { formWithHook } from "./setup.ts";

/**
 * A service with a form and a webhook whose store holds the answer of `match` once an S2
 * has nudged the worker into reading the outbox, and which is closed while it is held.
 */
async function stopWhileHeld(match: HoldMatch) {
  const receiver = await startReceiver([200]);
  after(() => receiver.close());
  const inner = createMemoryStore();
  const held = heldStore(inner);
  const errors: unknown[] = [];
  const service = createFormService({
    store: held.store,
    allowPrivateWebhookDestinations: true,
    webhookSender: createHttpWebhookSender({ allowPrivateDestinations: true }),
    // Only the S2's nudge reads the outbox while the test runs.
    webhookPollMs: 60_000,
    onError: (error) => errors.push(error),
  });
  const { submit } = await formWithHook(service, receiver.url);
  const hold = held.hold(match);
  const submitted = await submit("Ada");
  assert.equal(submitted.status, 200);
  await hold.reached;
  const closing = service.close();
  // Once whatever `close` does without waiting has run, the held answer arrives.
  await setImmediate();
  hold.release();
  await closing;
  // Room for anything a stop failed to wait for to show up (it would call a closed store).
  await new Promise((resolve) => setTimeout(resolve, 50));
  const outbox: OutboxEntry[] = [];
  for (const partition of outboxPartitions) {
    const { items } = await inner.query<OutboxEntry>(collections.webhookOutbox, partition);
    outbox.push(...items.map(({ record }) => record));
  }
  return { errors, lateCalls: held.lateCalls, outbox };
}

describe("stopping the webhook worker", () => {
  it("waits for a read of the outbox in progress and claims nothing after a stop", async () => {
    const { errors, lateCalls, outbox } = await stopWhileHeld({
      method: "query",
      collection: collections.webhookOutbox,
    });
    assert.deepEqual(lateCalls, []);
    assert.deepEqual(errors, []);
    assert.equal(outbox.length, 1);
    assert.equal(outbox[0]?.lease_owner, null);
    assert.ok((outbox[0]?.due_at ?? "") <= new Date().toISOString(), "due again at once");
  });

  it("hands back a claim that landed while it stopped", async () => {
    // The claim is written, but its answer comes back only once the stop has begun.
    const { errors, lateCalls, outbox } = await stopWhileHeld({
      method: "replace",
      collection: collections.webhookOutbox,
    });
    assert.deepEqual(lateCalls, []);
    assert.deepEqual(errors, []);
    assert.equal(outbox.length, 1);
    assert.equal(outbox[0]?.lease_owner, null, "the claim was handed back");
    assert.ok((outbox[0]?.due_at ?? "") <= new Date().toISOString(), "due again at once");
  });
});
