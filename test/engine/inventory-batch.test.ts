/**
 * Limited options (docs/design.md §11, §12): S6 writes the submission, the inventory it
 * moves and a cleared draft's webhook deliveries in one batch; and what a submission took is
 * bookkeeping that no answer, export or payload shows.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createHttpWebhookSender } from "../../src/index.ts";
import type { BatchOp, Store } from "../../src/ports/store.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { sectionPath } from "./fixture.ts";
import { ok, withSessions } from "./inventory-fixture.ts";

/** A memory store that logs each write by the collections it names, and can fail a batch. */
function recordingStore() {
  const inner = createMemoryStore();
  const writes: string[][] = [];
  let failNext = false;
  const store: Store = {
    get: (...args) => inner.get(...args),
    query: (...args) => inner.query(...args),
    scan: (...args) => inner.scan(...args),
    create(collection, ...rest) {
      writes.push([collection]);
      return inner.create(collection, ...rest);
    },
    replace(collection, ...rest) {
      writes.push([collection]);
      return inner.replace(collection, ...rest);
    },
    delete(collection, ...rest) {
      writes.push([collection]);
      return inner.delete(collection, ...rest);
    },
    deletePartition: (...args) => inner.deletePartition(...args),
    async batch(ops: readonly BatchOp[]) {
      writes.push(ops.map((op) => op.collection).sort());
      if (failNext) {
        failNext = false;
        throw new Error("disk failed");
      }
      return inner.batch(ops);
    },
    close: () => inner.close(),
  };
  const failNextBatch = () => {
    failNext = true;
  };
  return { store, writes, failNextBatch };
}

/** The fields of a submission record as the interface names them. */
const interfaceFields = [
  "created_by_device",
  "created_by_verified_email_address",
  "created_date_utc",
  "form_fields",
  "form_id",
  "id",
  "is_draft_submission",
  "modified_date_utc",
  "search_words",
  "stale_form_name",
];

describe("form engine: S6's batch and the inventory bookkeeping", () => {
  it("S6 clearing a draft writes it, its inventory and its webhook deliveries in one batch", async () => {
    const recording = recordingStore();
    const errors: unknown[] = [];
    const env = await withSessions(
      { am: 1 },
      {
        store: recording.store,
        allowPrivateWebhookDestinations: true,
        webhookPollMs: 0,
        onError: (error) => errors.push(error),
      },
    );
    const hooks = `/api/restricted/form/${env.formId}/submissionwebhook`;
    const hook = await env.call("POST", hooks, {
      as: env.alice,
      body: { webhook_name: "r", webhook_url: "http://127.0.0.1:9/hook" },
    });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    const deliveries = async () =>
      (await env.call("GET", `${hooks}/${hook.body.id}/deliveries`, { as: env.alice })).body
        .results as { payload: { data: { form_submission: Record<string, unknown> } } }[];
    const draft = ok(await env.post("am", true));

    recording.failNextBatch();
    const failed = await env.update(draft, { name_1: "Grace" }, false);
    assert.equal(failed.status, 500);
    assert.deepEqual(errors.map(String), ["Error: disk failed"]);
    assert.deepEqual(await env.stored(draft).then((values) => values.name_1), "Ada");
    assert.deepEqual(await env.remaining(), { am: 1 }, "inventory taken without the submission");
    assert.deepEqual(await deliveries(), [], "announced a submission that was not written");

    recording.writes.length = 0;
    assert.equal((await env.update(draft, { name_1: "Grace" }, false)).status, 200);
    // With its audit entry (docs/design.md §25).
    assert.deepEqual(recording.writes, [
      ["audit_entries", "form_counters", "submissions", "webhook_deliveries", "webhook_outbox"],
    ]);
    assert.deepEqual(await env.remaining(), { am: 0 });
    const [delivery, ...others] = await deliveries();
    assert.deepEqual(others, []);
    const announced = delivery?.payload.data.form_submission ?? {};
    assert.deepEqual(Object.keys(announced).sort(), interfaceFields);
    assert.equal(announced.is_draft_submission, false);
  });

  it("a plain S6 that moves no inventory writes only the submission and its audit entry", async () => {
    const recording = recordingStore();
    const env = await withSessions({ am: 1 }, { store: recording.store });
    const evening = ok(await env.post("pm"));
    recording.writes.length = 0;
    assert.equal((await env.update(evening, { name_1: "Grace" })).status, 200);
    // The form's first audit entry this month notes the form for the sweep first.
    assert.deepEqual(recording.writes, [["audit_months"], ["audit_entries", "submissions"]]);
    recording.writes.length = 0;
    assert.equal((await env.update(evening, { name_1: "Ada" })).status, 200);
    assert.deepEqual(recording.writes, [["audit_entries", "submissions"]]);
  });

  it("no answer, export or payload shows what a submission took", async () => {
    const receiver = await startReceiver([200]);
    const env = await withSessions(
      { am: 2 },
      {
        allowPrivateWebhookDestinations: true,
        webhookSender: createHttpWebhookSender({ allowPrivateDestinations: true }),
        webhookPollMs: 20,
      },
    );
    const hooks = `/api/restricted/form/${env.formId}/submissionwebhook`;
    const hook = await env.call("POST", hooks, {
      as: env.alice,
      body: { webhook_name: "r", webhook_url: receiver.url },
    });
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    const destination = await env.call("POST", sectionPath(env.formId, "destinationsettings"), {
      as: env.alice,
      body: { enabled: true, destination_url: receiver.url },
    });
    assert.equal(destination.status, 200, JSON.stringify(destination.body));
    const id = ok(await env.post("am"));
    await receiver.waitFor(2);
    for (const { body } of receiver.received) {
      const { data, form_submission } = JSON.parse(body);
      const shown = data?.form_submission ?? form_submission;
      assert.deepEqual(Object.keys(shown).sort(), interfaceFields, body);
    }
    const restricted = `/api/restricted/form/${env.formId}`;
    const one = await env.call("GET", `${restricted}/submission/${id}`, { as: env.alice });
    const noWords = interfaceFields.filter((name) => name !== "search_words");
    assert.deepEqual(Object.keys(one.body.form_submission).sort(), noWords);
    const listed = await env.call("GET", `${restricted}/submissions`, { as: env.alice });
    assert.deepEqual(Object.keys(listed.body.results[0]).sort(), interfaceFields);
    const exported = await env.service.fetch(
      new Request(`http://localhost${restricted}/submissions/export?format=ndjson`, {
        headers: { TokenId: env.alice.token_id, TokenSecret: env.alice.token_secret },
      }),
    );
    const text = await exported.text();
    assert.equal(exported.status, 200, text);
    assert.ok(!text.includes("inventory"), text);
    assert.ok(text.includes(id));
  });
});
