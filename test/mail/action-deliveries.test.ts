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
