/**
 * The worker claims an outbox entry on the etag its query answered (docs/design.md §14): one
 * query, one conditional replace, one batch per delivery, and no point read of the outbox.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { Context } from "../../src/domain/context.ts";
import {
  type Candidate,
  dueCandidates,
  takeEntry,
} from "../../src/domain/webhooks/outbox-claims.ts";
import { outboxPartitions } from "../../src/domain/webhooks/outbox-partitions.ts";
import type { OutboxEntry } from "../../src/domain/webhooks/webhook-outbox.ts";
import { newId } from "../../src/kernel/ids.ts";
import { countingStore } from "../counting-store.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { eventually, startReceiver } from "./receiver.ts";
import { withWebhookForm } from "./setup.ts";

describe("webhook worker: claims from the outbox query", () => {
  it("claims and settles a delivery without reading its outbox entry again", async () => {
    const receiver = await startReceiver([200]);
    const calls: string[] = [];
    const store = countingStore(serviceQueriesOnly(createMemoryStore()), calls);
    const env = await withWebhookForm({ store });
    const hook = await env.addHook({ webhook_name: "CRM", webhook_destination_url: receiver.url });
    calls.length = 0;
    assert.equal((await env.submit("Ada")).status, 200);
    await receiver.waitFor(1);
    await eventually(async () => (await env.deliveries(hook.body.id))[0]?.status === "delivered");
    const outbox = calls.filter((call) => call.endsWith(" webhook_outbox"));
    assert.ok(outbox.includes("query webhook_outbox"), calls.join("\n"));
    // The claim is a replace on the queried etag; no get of the entry comes before it.
    assert.equal(
      outbox.filter((call) => call === "get webhook_outbox").length,
      0,
      calls.join("\n"),
    );
    assert.equal(outbox.filter((call) => call === "replace webhook_outbox").length, 1);
    assert.equal((await env.call("GET", env.hooks, { as: env.alice })).status, 200);
  });

  it("takes a candidate with one write, and loses it when the entry changed since", async () => {
    const calls: string[] = [];
    const store = countingStore(createMemoryStore(), calls);
    const ctx = { store, now: () => new Date() } as Context;
    const partition = outboxPartitions[0] as string;
    const entry = (id: string): OutboxEntry => ({
      id,
      form_id: newId(),
      webhook_id: newId(),
      due_at: new Date(0).toISOString(),
      lease_owner: null,
      attempts_made: 0,
    });
    const [kept, changed] = [newId(), newId()].sort() as [string, string];
    await store.create("webhook_outbox", partition, entry(kept));
    await store.create("webhook_outbox", partition, entry(changed));
    const candidates = await dueCandidates(ctx, 2, 0);
    const of = (id: string) => candidates.find((c) => c.entry.record.id === id) as Candidate;
    // Another instance hands the entry back meanwhile: still due, but another etag.
    await store.replace("webhook_outbox", partition, { ...entry(changed), attempts_made: 1 });
    const leaseEnd = new Date(Date.now() + 60_000).toISOString();
    calls.length = 0;
    const claim = await takeEntry(ctx, of(kept), "me", leaseEnd);
    assert.deepEqual(calls, ["replace webhook_outbox"]);
    assert.equal(claim?.record.lease_owner, "me");
    assert.equal(claim?.record.attempts_made, 1);
    assert.equal(await takeEntry(ctx, of(changed), "me", leaseEnd), null);
    const after = await store.get<OutboxEntry>("webhook_outbox", partition, changed);
    assert.deepEqual([after?.record.lease_owner, after?.record.attempts_made], [null, 1]);
  });
});
