import assert from "node:assert/strict";
import { test } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { withActionForm } from "./action-setup.ts";
import { downServerUrl, startInbox } from "./smtp-inbox.ts";

type Env = Awaited<ReturnType<typeof withActionForm>>;

const log = async (env: Env, action: string, query = "") =>
  env.call("GET", `/api/restricted/form/${env.formId}/actions/${action}/deliveries${query}`, {
    as: env.alice,
  });

/** Polls the log until its newest delivery has `status`. */
async function settled(env: Env, action: string, status: string) {
  for (;;) {
    const [newest] = (await log(env, action)).body.results;
    if (newest?.status === status) return newest;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

test("the log lists an e-mail that failed first, then was delivered by a retry", async (t) => {
  const url = await downServerUrl();
  const env = await withActionForm({ smtpUrl: url });
  await env.confirm();
  const answer = await env.submit();
  assert.equal(answer.body.email_address_post_expected_but_failed, true);
  const inbox = await startInbox({ port: Number(new URL(url).port) });
  t.after(inbox.close);
  const delivery = await settled(env, "email", "delivered");
  assert.equal(delivery.kind, "email");
  assert.equal(delivery.submission_id, answer.body.id);
  assert.deepEqual(delivery.payload.to, ["ann@example.com"]);
  assert.equal(delivery.attempts[0].attempt, 1);
  assert.equal(delivery.attempts[0].outcome, "network_error");
  assert.equal(delivery.attempts.at(-1).outcome, "response");
  assert.equal(delivery.attempts.at(-1).status_code, 250);
});

test("the log lists a destination post delivered at its first attempt", async () => {
  const receiver = await startReceiver([200]);
  const env = await withActionForm();
  await env.destination(receiver.url);
  const answer = await env.submit();
  const delivery = await settled(env, "destination", "delivered");
  assert.equal(delivery.kind, "destination");
  assert.equal(delivery.payload.form_submission.id, answer.body.id);
  assert.equal(delivery.attempts.length, 1);
  assert.equal((await log(env, "email")).body.results.length, 0);
});

test("the log needs the account management role and a known action", async () => {
  const env = await withActionForm();
  const bob = await env.service.admin.createAccount({ email: "bob@example.com" });
  const path = `/api/restricted/form/${env.formId}/actions/email/deliveries`;
  assert.equal((await env.call("GET", path, { as: bob as never })).status, 404);
  const unknown = await log(env, "sms");
  assert.equal(unknown.status, 400);
  assert.equal((await log(env, "email", "?batchSize=0")).status, 400);
});

test("deleting the form deletes its action log", async () => {
  const store = createMemoryStore();
  const receiver = await startReceiver([200]);
  const env = await withActionForm({ extra: { store } });
  await env.destination(receiver.url);
  await env.submit();
  await settled(env, "destination", "delivered");
  const logId = `destination:${env.formId}`;
  assert.equal((await store.query("webhook_deliveries", logId)).items.length, 1);
  await env.setSection("generalsettingsdelete", {});
  assert.equal((await store.query("webhook_deliveries", logId)).items.length, 0);
});

test("a failed e-mail is sent again on redelivery, with the same Message-ID", async (t) => {
  const url = await downServerUrl();
  const env = await withActionForm({ smtpUrl: url, mailMaxAttempts: 2 });
  await env.confirm();
  await env.submit();
  const failed = await settled(env, "email", "failed");
  const inbox = await startInbox({ port: Number(new URL(url).port) });
  t.after(inbox.close);
  const redeliver = (action: string, id: string) =>
    env.call(
      "POST",
      `/api/restricted/form/${env.formId}/actions/${action}/deliveries/${id}/redeliver`,
      { as: env.alice },
    );
  const again = await redeliver("email", failed.id);
  assert.equal(again.status, 200, JSON.stringify(again.body));
  assert.equal(again.body.message, "Delivery queued again");
  const delivered = await settled(env, "email", "delivered");
  assert.equal(delivered.id, failed.id);
  assert.equal(delivered.attempts.length, 3);
  assert.equal(inbox.received.length, 1);
  assert.equal(inbox.received[0]?.mail.messageId, `<${failed.id}@example.com>`);
  // Not in the destination log, nor a delivery at all.
  assert.equal((await redeliver("destination", failed.id)).status, 404);
  assert.equal((await redeliver("email", "00000000-0000-4000-8000-000000000000")).status, 404);
  assert.equal((await redeliver("sms", failed.id)).status, 400);
});

test("a pending action is not redelivered: 409", async () => {
  const receiver = await startReceiver(["hang"]);
  const env = await withActionForm({ actionTimeoutMs: 100 });
  await env.destination(receiver.url);
  const answer = await env.submit();
  assert.equal(answer.body.cloud_database_post_expected_but_failed, true);
  const [pending] = (await log(env, "destination")).body.results;
  assert.equal(pending.status, "pending");
  const path = `/api/restricted/form/${env.formId}/actions/destination/deliveries/${pending.id}/redeliver`;
  const again = await env.call("POST", path, { as: env.alice });
  assert.equal(again.status, 409, JSON.stringify(again.body));
  assert.equal(again.body.error, "conflict");
});
