/**
 * What a crash or a race leaves of a deletion (docs/design.md §6, §14): an erasure cut short
 * is taken up by the sweep; a deleted submission's deliveries are purged under a worker that
 * holds one, and ended unsent by the worker when a crash cut the purge short.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { crashingStore } from "../crashing-store.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { countsOf, newsletterFields, submissionPath } from "./respondent-forms.ts";
import { recordsOf, respondentWorld, storeText } from "./respondent-setup.ts";

describe("deliveries of a deleted submission", () => {
  it("are deleted under a worker that holds one, which writes nothing and fails nothing", async () => {
    const receiver = await startReceiver([{ status: 200, delayMs: 300 }]);
    const errors: unknown[] = [];
    const env = await respondentWorld(createMemoryStore({ freezeWrites: true }), {
      onError: (error) => errors.push(error),
    });
    const alice = await env.user("alice@example.com");
    const formId = await env.newForm(alice, "Newsletter", newsletterFields);
    const hook = await env.call("POST", `/api/restricted/form/${formId}/submissionwebhook`, {
      as: alice,
      body: { webhook_name: "created", webhook_url: receiver.url },
    });
    const id = await env.submit(formId, { contact_1: "ada@example.com", name_2: "Ada" });
    // The worker holds the entry while the receiver takes its time to answer.
    await receiver.waitFor(1);
    const deleted = await env.call("DELETE", submissionPath(formId, id), { as: alice });
    assert.equal(deleted.body.form_submission_item_deleted, true);
    assert.deepEqual(await recordsOf(env.store, "webhook_deliveries"), []);
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.deepEqual(await recordsOf(env.store, "webhook_deliveries"), []);
    assert.deepEqual(await recordsOf(env.store, "webhook_outbox"), []);
    const log = await env.call(
      "GET",
      `/api/restricted/form/${formId}/submissionwebhook/${hook.body.id}/deliveries`,
      { as: alice },
    );
    assert.deepEqual(log.body.results, []);
    assert.deepEqual(errors, []);
    assert.equal(receiver.received.length, 1);
  });

  it("left pending by a crash after the deletion are ended by the worker unsent", async () => {
    const receiver = await startReceiver([200]);
    const inner = createMemoryStore({ freezeWrites: true });
    // The process "dies" once S7's batch has landed, before its purge.
    const { store, arm } = crashingStore(inner, (name, args) => {
      const ops = args[0] as { op: string; collection: string }[];
      return (
        name === "batch" && ops.some((op) => op.op === "delete" && op.collection === "submissions")
      );
    });
    const first = await respondentWorld(store, { webhookPollMs: 0 });
    const alice = await first.user("alice@example.com");
    const formId = await first.newForm(alice, "Newsletter", newsletterFields);
    const hook = await first.call("POST", `/api/restricted/form/${formId}/submissionwebhook`, {
      as: alice,
      body: { webhook_name: "created", webhook_url: receiver.url },
    });
    assert.equal(hook.status, 200);
    const id = await first.submit(formId, { contact_1: "ada@example.com", name_2: "Ada" });
    arm();
    assert.equal(
      (await first.call("DELETE", submissionPath(formId, id), { as: alice })).status,
      500,
    );
    assert.equal((await recordsOf(inner, "webhook_deliveries")).length, 1);
    // Another instance's worker takes the entry up and ends it without sending it.
    const second = await respondentWorld(inner);
    for (let tries = 0; tries < 100; tries++) {
      if ((await recordsOf(inner, "webhook_outbox")).length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(await recordsOf(inner, "webhook_outbox"), []);
    assert.deepEqual(await recordsOf(inner, "webhook_deliveries"), []);
    assert.equal(receiver.received.length, 0);
    await second.service.close();
  });
});

describe("an erasure cut short", () => {
  it("is taken up by the sweep once its lease ran out, and leaves nothing of the respondent", async () => {
    const inner = createMemoryStore({ freezeWrites: true });
    let deletions = 0;
    // The process "dies" once the second submission's deletion batch has landed.
    const { store, arm } = crashingStore(inner, (name, args) => {
      if (name !== "batch") return false;
      const ops = args[0] as { op: string; collection: string }[];
      return (
        ops.some((op) => op.op === "delete" && op.collection === "submissions") && ++deletions === 2
      );
    });
    const env = await respondentWorld(store);
    const alice = await env.user("alice@example.com");
    const formId = await env.newForm(alice, "Newsletter", newsletterFields);
    for (let n = 0; n < 5; n++)
      await env.submit(formId, { contact_1: "ada@example.com", name_2: `Ada ${n}` });
    const bob = await env.submit(formId, { contact_1: "bob@example.com", name_2: "Bob" });
    arm();
    const cut = await env.erase("ada@example.com", { as: alice });
    assert.equal(cut.status, 500);

    // Another instance over the same records, after the crash.
    const after = await respondentWorld(inner);
    const jobsOf = async () =>
      (await recordsOf(inner, "service_state")).filter(({ partition }) => partition === "erasures");
    const jobs = await jobsOf();
    assert.equal(jobs.length, 1);
    // Neither the address nor the name: as a whole word, since the job's hex ids and key
    // hold "ada" now and then (a request id "…09adaa48…" failed this once).
    assert.doesNotMatch(JSON.stringify(jobs), /ada@|\bada\b/i);
    // Within its lease the job is its writer's: the sweep leaves it.
    await after.service.sweepAttachments();
    assert.equal((await jobsOf()).length, 1);
    after.clock.now = new Date(after.clock.now.getTime() + 31_000);
    await after.service.sweepAttachments();
    assert.deepEqual(await jobsOf(), []);
    const listed = await after.call("GET", `/api/restricted/form/${formId}/submissions`, {
      as: alice,
    });
    assert.deepEqual(
      listed.body.results.map((s: { id: string }) => s.id),
      [bob],
    );
    assert.deepEqual(await countsOf(inner, [formId]), [1]);
    assert.equal((await recordsOf(inner, "respondent_index")).length, 1);
    assert.doesNotMatch(await storeText(inner), /ada@example\.com/i);
  });
});
