import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService } from "../../src/index.ts";
import { settingsPath } from "../form-fixture.ts";
import { request } from "../helpers.ts";
import { eventually, startReceiver } from "../webhooks/receiver.ts";
import { flagsOf, withActionForm } from "./action-setup.ts";
import { downServerUrl, startInbox, startSilentServer } from "./smtp-inbox.ts";

test("a form without actions sends nothing and both flags are false", async () => {
  const env = await withActionForm();
  assert.deepEqual(flagsOf(await env.submit()), { email: false, destination: false });
});

test("the confirmation e-mail arrives rendered, and its flag is false", async (t) => {
  const inbox = await startInbox();
  t.after(inbox.close);
  const env = await withActionForm({ smtpUrl: inbox.url });
  await env.confirm();
  assert.deepEqual(flagsOf(await env.submit("<Ann>")), { email: false, destination: false });
  const [got] = inbox.received;
  assert.deepEqual(got?.rcptTo, ["ann@example.com"]);
  assert.equal(got?.mail.subject, "Tea &amp; cake: thanks &lt;Ann&gt;");
  assert.equal(got?.mail.text?.trim(), "Hello &lt;Ann&gt;, we got your answers.");
});

test("a draft sends no e-mail", async (t) => {
  const inbox = await startInbox();
  t.after(inbox.close);
  const env = await withActionForm({ smtpUrl: inbox.url });
  await env.confirm();
  assert.deepEqual(flagsOf(await env.submit("Ann", true)), { email: false, destination: false });
  assert.equal(inbox.received.length, 0);
});

test("an SMTP server down sets the e-mail flag, and a retry delivers it once it is up", async (t) => {
  const url = await downServerUrl();
  const env = await withActionForm({ smtpUrl: url });
  await env.confirm();
  assert.deepEqual(flagsOf(await env.submit()), { email: true, destination: false });
  const inbox = await startInbox({ port: Number(new URL(url).port) });
  t.after(inbox.close);
  await inbox.waitFor(1);
  assert.equal(inbox.received[0]?.mail.subject, "Tea &amp; cake: thanks Ann");
});

test("S2 waits no longer than the action timeout for an SMTP server that never answers", async (t) => {
  const silent = await startSilentServer();
  t.after(silent.close);
  // The mailer's own timeouts are 5 s; the action's 200 ms bound S2.
  const env = await withActionForm({
    smtpUrl: silent.url,
    actionTimeoutMs: 200,
    mailMaxAttempts: 1,
  });
  await env.confirm();
  assert.deepEqual(flagsOf(await env.submit()), { email: true, destination: false });
});

test("no mailer configured: the e-mail flag is true", async () => {
  const env = await withActionForm();
  await env.confirm();
  assert.deepEqual(flagsOf(await env.submit()), { email: true, destination: false });
});

test("the destination post carries the submission, the form name and the header", async () => {
  const receiver = await startReceiver([200]);
  const env = await withActionForm();
  await env.destination(receiver.url);
  const answer = await env.submit();
  assert.deepEqual(flagsOf(answer), { email: false, destination: false });
  const [got] = receiver.received;
  assert.equal(got?.headers["x-api-key"], "k3y");
  assert.equal(got?.headers["webhook-signature"], undefined);
  const body = JSON.parse(got?.body ?? "{}");
  assert.equal(body.form_id, env.formId);
  assert.equal(body.form_name, "Tea & cake");
  assert.equal(body.form_submission.id, answer.body.id);
  assert.equal(body.form_submission.form_fields[1].submitted_value, "Ann");
});

test("a failed destination post sets its flag, and a retry delivers it", async () => {
  const receiver = await startReceiver([503, 200]);
  const env = await withActionForm();
  await env.destination(receiver.url);
  assert.deepEqual(flagsOf(await env.submit()), { email: false, destination: true });
  await receiver.waitFor(2);
  assert.equal(receiver.received[0]?.body, receiver.received[1]?.body);
});

test("a destination on a private address is refused at F2, and by the guard at delivery without retries", async () => {
  const receiver = await startReceiver([200]);
  const store = createMemoryStore();
  const env = await withActionForm({ allowPrivate: false, extra: { store } });
  const path = settingsPath(env.formId, "destinationsettings");
  const body = { enabled: true, destination_url: receiver.url };
  const refused = await env.call("POST", path, { as: env.alice, body });
  assert.equal(refused.status, 400, JSON.stringify(refused.body));
  assert.equal(refused.body.issues[0].path, "destination_url");
  // Stored as a service that allows private destinations stores it (or as F2 did before it
  // checked destinations): the delivery refuses it all the same.
  const permissive = createFormService({ store, allowPrivateWebhookDestinations: true });
  after(() => permissive.close());
  assert.equal((await request(permissive, "POST", path, { as: env.alice, body })).status, 200);
  assert.deepEqual(flagsOf(await env.submit()), { email: false, destination: true });
  assert.equal(receiver.received.length, 0);
});

test("both actions run together, each flag says how its own first attempt went", async (t) => {
  const inbox = await startInbox();
  t.after(inbox.close);
  const receiver = await startReceiver(["hang"]);
  const env = await withActionForm({ smtpUrl: inbox.url, actionTimeoutMs: 1000 });
  await env.confirm();
  await env.destination(receiver.url);
  assert.deepEqual(flagsOf(await env.submit()), { email: false, destination: true });
  assert.equal(inbox.received.length, 1);
});

test("an S6 that clears the draft flag sends the e-mail", async (t) => {
  const inbox = await startInbox();
  t.after(inbox.close);
  const env = await withActionForm({ smtpUrl: inbox.url });
  await env.confirm();
  const draft = await env.submit("Ann", true);
  const path = `/api/restricted/form/${env.formId}/submission/${draft.body.id}`;
  const updated = await env.call("POST", path, {
    as: env.alice,
    body: { form_fields: [], is_draft_submission: false },
  });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  assert.equal(inbox.received.length, 1);
});

test("an e-mail S2 stopped waiting for is settled by the server's late answer, and sent once", async (t) => {
  const inbox = await startInbox({ answerAfterMs: 800 });
  t.after(inbox.close);
  const env = await withActionForm({ smtpUrl: inbox.url, actionTimeoutMs: 200 });
  await env.confirm();
  const answer = await env.submit();
  // S2 could not say it was sent within its 200 ms.
  assert.deepEqual(flagsOf(answer), { email: true, destination: false });
  const log = `/api/restricted/form/${env.formId}/actions/email/deliveries`;
  await eventually(async () => {
    const [delivery] = (await env.call("GET", log, { as: env.alice })).body.results;
    return delivery?.status === "delivered";
  });
  const [delivery] = (await env.call("GET", log, { as: env.alice })).body.results;
  assert.equal(delivery.attempts.length, 1);
  assert.equal(delivery.attempts[0].status_code, 250);
  // Closing waits for every send in progress: none is left to come.
  await env.service.close();
  assert.equal(inbox.received.length, 1);
  assert.equal(inbox.received[0]?.mail.messageId, `<${delivery.id}@example.com>`);
});
