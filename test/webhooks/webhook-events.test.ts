/**
 * W2's `events` (docs/design.md §7): a webhook is called for a new submission by default, and
 * for edits (S6) and deletions (S7) when it asks for them, on every store.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";
import { startReceiver } from "./receiver.ts";
import { withWebhookForm } from "./setup.ts";

const allEvents = ["form_submission.created", "form_submission.updated", "form_submission.deleted"];

interface Payload {
  type: string;
  data: { form_id: string; form_submission: Record<string, unknown> };
}

describe("W2 events: which changes a webhook hears of", () => {
  it("refuses events that are empty, unknown, repeated or not a list, with 400 naming the field", async () => {
    const env = await withWebhookForm();
    for (const events of [
      [],
      ["form_submission.viewed"],
      ["form_submission.created", "form_submission.created"],
      "form_submission.created",
      [1],
    ]) {
      const answer = await env.addHook({
        webhook_name: "r",
        webhook_url: "http://127.0.0.1:9/hook",
        events,
      });
      assert.equal(answer.status, 400, JSON.stringify(events));
      assert.equal(answer.body.action_successful, false);
      assert.ok(
        answer.body.issues.some((issue: { path: string }) => issue.path.startsWith("events")),
        JSON.stringify(answer.body),
      );
    }
    const listed = await env.call("GET", env.hooks, { as: env.alice });
    assert.deepEqual(listed.body, []);
  });

  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`sends created, updated and deleted to the webhooks that ask for them (${name})`, async () => {
      const toPlain = await startReceiver([200]);
      const toEvery = await startReceiver([200]);
      const env = await withWebhookForm({ store: serviceQueriesOnly(await open()) });
      const plain = await env.addHook({ webhook_name: "plain", webhook_url: toPlain.url });
      const every = await env.addHook({
        webhook_name: "every",
        webhook_url: toEvery.url,
        events: allEvents,
      });
      assert.equal(plain.status, 200);
      assert.equal(every.status, 200);
      const listed = (await env.call("GET", env.hooks, { as: env.alice })).body as {
        id: string;
        events: string[];
        webhook_shared_secret: string;
      }[];
      const byId = new Map(listed.map((hook) => [hook.id, hook]));
      assert.deepEqual(byId.get(plain.body.id)?.events, ["form_submission.created"]);
      assert.deepEqual(byId.get(every.body.id)?.events, allEvents);
      const secret = byId.get(every.body.id)?.webhook_shared_secret as string;

      const posted = await env.submit("Ada");
      assert.equal(posted.status, 200);
      await toEvery.waitFor(1);
      const path = `/api/restricted/form/${env.formId}/submission/${posted.body.id}`;
      const edited = await env.call("POST", path, {
        as: env.alice,
        body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada L." }] },
      });
      assert.equal(edited.status, 200);
      await toEvery.waitFor(2);
      const deleted = await env.call("DELETE", path, { as: env.alice });
      assert.equal(deleted.body.form_submission_item_deleted, true);
      await toEvery.waitFor(3);
      await toPlain.waitFor(1);

      assert.deepEqual(
        toPlain.received.map((call) => (JSON.parse(call.body) as Payload).type),
        ["form_submission.created"],
      );
      const payloads = toEvery.received.map(
        (call) =>
          new Webhook(secret).verify(call.body, call.headers as Record<string, string>) as Payload,
      );
      assert.deepEqual(
        payloads.map((payload) => payload.type),
        allEvents,
      );
      const [created, updated, gone] = payloads as [Payload, Payload, Payload];
      assert.equal(created.data.form_submission.id, posted.body.id);
      assert.equal(updated.data.form_id, env.formId);
      assert.deepEqual(updated.data.form_submission.form_fields, [
        { unique_system_name: "name_1", submitted_value: "Ada L." },
      ]);
      // A deletion names the submission and sends none of what it held.
      assert.deepEqual(gone.data.form_submission, { id: posted.body.id });
      assert.doesNotMatch(toEvery.received[2]?.body ?? "", /Ada/);
      // S7 deletes the submission's deliveries (their payloads held its values) but its own.
      const log = await env.deliveries(every.body.id);
      assert.deepEqual(
        log.map((delivery: { event_type: string }) => delivery.event_type),
        ["form_submission.deleted"],
      );
      assert.equal(toPlain.received.length, 1);
      // Closed here, while the store's emulator still runs: its worker reads the outbox last.
      await env.service.close();
    });
  }

  it("announces a draft's edits not at all, and its clearing as created, not updated", async () => {
    const receiver = await startReceiver([200]);
    const env = await withWebhookForm();
    await env.addHook({ webhook_name: "every", webhook_url: receiver.url, events: allEvents });
    const draft = await env.submit("Ada", true);
    const path = `/api/restricted/form/${env.formId}/submission/${draft.body.id}`;
    const still = await env.call("POST", path, {
      as: env.alice,
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada L." }] },
    });
    assert.equal(still.status, 200);
    const cleared = await env.call("POST", path, {
      as: env.alice,
      body: { is_draft_submission: false },
    });
    assert.equal(cleared.status, 200);
    await receiver.waitFor(1);
    await new Promise((resolve) => setTimeout(resolve, 300));
    assert.deepEqual(
      receiver.received.map((call) => (JSON.parse(call.body) as Payload).type),
      ["form_submission.created"],
    );
  });

  it("sends an edit to a webhook added after the form's version was read by another instance", async () => {
    const receiver = await startReceiver([200]);
    const env = await withWebhookForm();
    const posted = await env.submit("Ada");
    const path = `/api/restricted/form/${env.formId}/submission/${posted.body.id}`;
    // A first edit with no webhook caches the form's snapshot without webhooks.
    await env.call("POST", path, {
      as: env.alice,
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "A" }] },
    });
    await env.addHook({
      webhook_name: "late",
      webhook_url: receiver.url,
      events: ["form_submission.updated"],
    });
    await env.call("POST", path, {
      as: env.alice,
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "B" }] },
    });
    await receiver.waitFor(1);
    const payload = JSON.parse(receiver.received[0]?.body ?? "{}") as Payload;
    assert.equal(payload.type, "form_submission.updated");
  });
});
