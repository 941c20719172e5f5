import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { outboxPartitionOf } from "../../src/domain/webhooks/webhook-outbox.ts";
import { request } from "../helpers.ts";
import { eventually, startReceiver } from "./receiver.ts";
import { formWithHook, sharedStore, webhookService, withWebhookForm } from "./setup.ts";

describe("durable webhook deliveries", () => {
  it("delivers what was queued before a restart", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-outbox-"));
    after(() => rm(directory, { recursive: true, force: true }));
    const receiver = await startReceiver([200]);
    // No worker: the deliveries stay queued when this instance stops.
    const before = webhookService({ store: createLowdbStore({ directory }), pollMs: 0 });
    const { submit } = await formWithHook(before, receiver.url);
    await submit("Ada");
    await submit("Bob");
    await before.close();
    assert.equal(receiver.received.length, 0);
    const afterRestart = webhookService({ store: createLowdbStore({ directory }) });
    await receiver.waitFor(2);
    await afterRestart.close();
    const names = receiver.received.map(
      (r) => JSON.parse(r.body).data.form_submission.form_fields[0].submitted_value,
    );
    assert.deepEqual(names.sort(), ["Ada", "Bob"]);
  });

  it("sends each attempt once when several instances share one store", async () => {
    const receiver = await startReceiver([500, 200], true);
    const store = createMemoryStore();
    const instances = [0, 1, 2].map(() =>
      webhookService({ store: sharedStore(store), pollMs: 10 }),
    );
    after(() => Promise.all(instances.map((instance) => instance.close())));
    const [first] = instances;
    assert.ok(first);
    const { submit } = await formWithHook(first, receiver.url);
    for (let n = 0; n < 10; n++) await submit(`person ${n}`);
    // Each of the 10 messages fails once and then succeeds: 20 requests, no more.
    await receiver.waitFor(20);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.equal(receiver.received.length, 20);
    const perId = new Map<string, number>();
    for (const r of receiver.received) {
      const id = String(r.headers["webhook-id"]);
      perId.set(id, (perId.get(id) ?? 0) + 1);
    }
    assert.equal(perId.size, 10);
    assert.ok([...perId.values()].every((count) => count === 2));
  });

  it("takes over the deliveries of an instance that died holding them", async () => {
    const receiver = await startReceiver([200]);
    const store = createMemoryStore();
    const dead = webhookService({ store: sharedStore(store), pollMs: 0 });
    const { submit, webhookId } = await formWithHook(dead, receiver.url);
    await submit("Ada");
    // Claim the entry the way a worker would, with a lease that ends in 300 ms, then vanish.
    const delivery = (await store.query<{ id: string }>("webhook_deliveries", webhookId)).items[0]
      ?.record;
    assert.ok(delivery);
    const partition = outboxPartitionOf(delivery.id);
    const { items } = await store.query("webhook_outbox", partition);
    const entry = items[0]?.record;
    assert.ok(entry);
    const stored = await store.get("webhook_outbox", partition, entry.id);
    const leaseEnd = new Date(Date.now() + 300).toISOString();
    await store.replace(
      "webhook_outbox",
      partition,
      { ...(stored?.record ?? entry), lease_owner: "dead", due_at: leaseEnd },
      { ifMatch: stored?.etag },
    );
    const survivor = webhookService({ store: sharedStore(store), pollMs: 20 });
    after(() => survivor.close());
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(receiver.received.length, 0, "the lease still holds");
    await receiver.waitFor(1);
  });
});

describe("webhook destinations (SSRF guard)", () => {
  it("refuses loopback, private, link-local, unique-local and metadata destinations", async () => {
    const env = await withWebhookForm({ allowPrivate: false });
    for (const url of [
      "http://127.0.0.1:8080/hook",
      "http://localhost/hook",
      "http://10.0.0.8/hook",
      "http://192.168.1.1/hook",
      "http://172.16.0.1/hook",
      "http://169.254.169.254/latest/meta-data",
      "http://100.100.100.200/",
      "http://[::1]/hook",
      "http://[fd00:ec2::254]/",
      "http://[fe80::1]/",
      "http://[::ffff:127.0.0.1]/",
      "http://0.0.0.0/",
    ]) {
      const { status, body } = await env.addHook({ webhook_name: "x", webhook_url: url });
      assert.equal(status, 400, url);
      assert.equal(body.issues[0].path, "webhook_destination_url", url);
    }
    const ok = await env.addHook({ webhook_name: "x", webhook_url: "https://93.184.215.14/h" });
    assert.equal(ok.status, 200);
  });

  it("refuses a private destination again at delivery time", async () => {
    const receiver = await startReceiver([200]);
    const store = createMemoryStore();
    const permissive = webhookService({ store: sharedStore(store), pollMs: 0 });
    const { submit, webhookId, alice, formId } = await formWithHook(permissive, receiver.url);
    const strict = webhookService({ store: sharedStore(store), allowPrivate: false, pollMs: 20 });
    after(() => strict.close());
    await submit("Ada");
    const path = `/api/restricted/form/${formId}/submissionwebhook/${webhookId}/deliveries`;
    await eventually(
      async () =>
        (await request(strict, "GET", path, { as: alice })).body.results[0]?.status === "failed",
    );
    const [delivery] = (await request(strict, "GET", path, { as: alice })).body.results;
    assert.equal(delivery.attempts[0].outcome, "refused");
    assert.equal(receiver.received.length, 0);
  });
});
