import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { eventually, startReceiver } from "./receiver.ts";
import { withWebhookForm } from "./setup.ts";

describe("W1-W3 submission webhooks", () => {
  it("adds, lists with the signing secret, and removes a webhook", async () => {
    const env = await withWebhookForm();
    const added = await env.addHook({
      webhook_name: "CRM",
      webhook_url: "https://93.184.215.14/hook",
      http_header_key: "X-Api-Key",
      http_header_value: "k1",
    });
    assert.equal(added.status, 200);
    assert.equal(added.body.message, "Form submission webhook added successfully");
    assert.equal(added.body.action_successful, true);
    const listed = await env.call("GET", env.hooks, { as: env.alice });
    assert.equal(listed.status, 200);
    const [hook] = listed.body;
    assert.equal(hook.id, added.body.id);
    assert.equal(hook.form_id, env.formId);
    assert.equal(hook.webhook_name, "CRM");
    assert.equal(hook.webhook_destination_url, "https://93.184.215.14/hook");
    assert.equal(hook.http_header_key, "X-Api-Key");
    assert.equal(hook.http_header_value, "k1");
    assert.equal(hook.created_by_user_id, env.alice.user_id);
    assert.match(hook.webhook_shared_secret, /^whsec_[A-Za-z0-9+/=]{40,}$/);
    const removed = await env.call("DELETE", `${env.hooks}/${hook.id}`, { as: env.alice });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.message, "Form submission webhook removed successfully");
    assert.deepEqual((await env.call("GET", env.hooks, { as: env.alice })).body, []);
    const again = await env.call("DELETE", `${env.hooks}/${hook.id}`, { as: env.alice });
    assert.equal(again.status, 404);
  });

  it("refuses bad bodies with 400 naming the field", async () => {
    const env = await withWebhookForm();
    const cases: [Record<string, unknown>, string][] = [
      [{ webhook_name: "x", webhook_destination_url: "not a url" }, "webhook_destination_url"],
      [
        { webhook_name: "x", webhook_destination_url: "ftp://93.184.215.14/" },
        "webhook_destination_url",
      ],
      [{ webhook_name: "x" }, "webhook_destination_url"],
      [{ webhook_destination_url: "https://93.184.215.14/" }, "webhook_name"],
      [
        {
          webhook_name: "x",
          webhook_url: "https://93.184.215.14/",
          http_header_key: "Bad Key",
          http_header_value: "v",
        },
        "http_header_key",
      ],
      [
        { webhook_name: "x", webhook_url: "https://93.184.215.14/", http_header_key: "X-Key" },
        "http_header_key",
      ],
      [
        {
          webhook_name: "x",
          webhook_url: "https://93.184.215.14/",
          http_header_key: "webhook-id",
          http_header_value: "v",
        },
        "http_header_key",
      ],
      [
        {
          webhook_name: "x",
          webhook_url: "https://93.184.215.14/",
          http_header_key: "X-Key",
          http_header_value: "a\r\nb",
        },
        "http_header_value",
      ],
      // Seen accepted, then failing every delivery without a word.
      ...["é✓", "é", " padded", "tab\t", "nul\0"].map(
        (value): [Record<string, unknown>, string] => [
          {
            webhook_name: "x",
            webhook_url: "https://93.184.215.14/",
            http_header_key: "X-Key",
            http_header_value: value,
          },
          "http_header_value",
        ],
      ),
    ];
    for (const [body, path] of cases) {
      const { status, body: answer } = await env.addHook(body);
      assert.equal(status, 400, JSON.stringify(body));
      assert.equal(answer.error, "validation_failed");
      assert.ok(
        answer.issues.some((issue: { path: string }) => issue.path === path),
        `${JSON.stringify(body)}: ${JSON.stringify(answer.issues)}`,
      );
    }
    assert.deepEqual((await env.call("GET", env.hooks, { as: env.alice })).body, []);
  });

  it("lets only the owner and account managers manage webhooks", async () => {
    const env = await withWebhookForm();
    const editorGrant = `/api/restricted/form/${env.formId}/usersecurity?collaborator_email=ed@example.com&has_form_editor=1`;
    await env.call("POST", editorGrant, { as: env.alice });
    const editor = await env.service.admin.createAccount({ email: "ed@example.com" });
    const stranger = await env.service.admin.createAccount({ email: "x@example.com" });
    const as = (user: typeof editor) => ({ as: user as never });
    assert.equal((await env.call("GET", env.hooks, as(editor))).status, 403);
    assert.equal((await env.call("GET", env.hooks, as(stranger))).status, 404);
    assert.equal((await env.call("GET", env.hooks)).status, 401);
  });
});

describe("webhook delivery", () => {
  it("sends a signed payload with the custom header, after S2 has answered", async () => {
    const receiver = await startReceiver([200]);
    const env = await withWebhookForm();
    const hook = await env.addHook({
      webhook_name: "CRM",
      webhook_destination_url: receiver.url,
      http_header_key: "X-Api-Key",
      http_header_value: "k1",
    });
    const secret = (await env.call("GET", env.hooks, { as: env.alice })).body[0]
      .webhook_shared_secret;
    const posted = await env.submit("Ada");
    assert.equal(posted.status, 200);
    await receiver.waitFor(1);
    const [call] = receiver.received;
    assert.ok(call);
    assert.equal(call.headers["x-api-key"], "k1");
    assert.equal(call.headers["content-type"], "application/json");
    const payload = new Webhook(secret).verify(
      call.body,
      call.headers as Record<string, string>,
    ) as {
      type: string;
      data: { form_id: string; form_submission: { id: string; form_fields: unknown[] } };
    };
    assert.equal(payload.type, "form_submission.created");
    assert.equal(payload.data.form_id, env.formId);
    assert.equal(payload.data.form_submission.id, posted.body.id);
    assert.throws(() =>
      new Webhook(secret).verify(`${call.body} `, call.headers as Record<string, string>),
    );
    await eventually(async () => (await env.deliveries(hook.body.id))[0]?.status === "delivered");
    const [delivery] = await env.deliveries(hook.body.id);
    assert.equal(delivery.id, call.headers["webhook-id"]);
    assert.equal(delivery.submission_id, posted.body.id);
    assert.equal(delivery.attempts.length, 1);
    assert.equal(delivery.attempts[0].status_code, 200);
  });

  it("retries after two 500s with one webhook-id, and never after a 400", async () => {
    const flaky = await startReceiver([500, 500, 200]);
    const strict = await startReceiver([400]);
    const env = await withWebhookForm();
    const first = await env.addHook({ webhook_name: "flaky", webhook_url: flaky.url });
    const second = await env.addHook({ webhook_name: "strict", webhook_url: strict.url });
    await env.submit("Ada");
    await flaky.waitFor(3);
    const ids = new Set(flaky.received.map((r) => r.headers["webhook-id"]));
    assert.equal(ids.size, 1);
    await eventually(async () => (await env.deliveries(first.body.id))[0]?.status === "delivered");
    const [retried] = await env.deliveries(first.body.id);
    assert.deepEqual(
      retried.attempts.map((a: { status_code: number }) => a.status_code),
      [500, 500, 200],
    );
    await eventually(async () => (await env.deliveries(second.body.id))[0]?.status === "failed");
    assert.equal(strict.received.length, 1);
  });

  it("gives up after the last attempt on a receiver that answers 500 for ever", async () => {
    const broken = await startReceiver([500]);
    const env = await withWebhookForm({ maxAttempts: 3 });
    const hook = await env.addHook({ webhook_name: "broken", webhook_url: broken.url });
    await env.submit("Ada");
    await eventually(async () => (await env.deliveries(hook.body.id))[0]?.status === "failed");
    assert.equal(broken.received.length, 3);
  });

  it("retries a receiver that hangs or drops the connection", async () => {
    const hanging = await startReceiver(["hang", 200]);
    const dropping = await startReceiver(["drop", 200]);
    const env = await withWebhookForm({ timeoutMs: 300 });
    const a = await env.addHook({ webhook_name: "hang", webhook_url: hanging.url });
    const b = await env.addHook({ webhook_name: "drop", webhook_url: dropping.url });
    await env.submit("Ada");
    await eventually(async () => (await env.deliveries(a.body.id))[0]?.status === "delivered");
    await eventually(async () => (await env.deliveries(b.body.id))[0]?.status === "delivered");
    const [hung] = await env.deliveries(a.body.id);
    assert.deepEqual(
      hung.attempts.map((attempt: { outcome: string }) => attempt.outcome),
      ["timeout", "response"],
    );
    const [dropped] = await env.deliveries(b.body.id);
    assert.equal(dropped.attempts[0].outcome, "network_error");
  });

  it("answers S2 while a slow receiver is still holding its request", async () => {
    const slow = await startReceiver([{ status: 200, delayMs: 2000 }]);
    const env = await withWebhookForm();
    const hook = await env.addHook({ webhook_name: "slow", webhook_url: slow.url });
    await env.submit("first");
    await slow.waitFor(1);
    // The receiver holds the first request for 2 s; S2 must not wait for it.
    const second = await env.submit("second");
    assert.equal(second.status, 200);
    const [latest] = await env.deliveries(hook.body.id);
    assert.notEqual(latest.status, "delivered", "S2 answered before any delivery finished");
  });

  it("announces a draft only once S6 clears its draft flag", async () => {
    const receiver = await startReceiver([200]);
    const env = await withWebhookForm();
    await env.addHook({ webhook_name: "r", webhook_url: receiver.url });
    const draft = await env.submit("Ada", true);
    const update = await env.call(
      "POST",
      `/api/restricted/form/${env.formId}/submission/${draft.body.id}`,
      { as: env.alice, body: { is_draft_submission: false } },
    );
    assert.equal(update.status, 200);
    await receiver.waitFor(1);
    const payload = JSON.parse(receiver.received[0]?.body ?? "{}");
    assert.equal(payload.data.form_submission.id, draft.body.id);
    assert.equal(payload.data.form_submission.is_draft_submission, false);
    assert.equal(receiver.received.length, 1);
  });

  it("redelivers a finished delivery with the same webhook-id", async () => {
    const receiver = await startReceiver([200]);
    const env = await withWebhookForm();
    const hook = await env.addHook({ webhook_name: "r", webhook_url: receiver.url });
    await env.submit("Ada");
    await eventually(async () => (await env.deliveries(hook.body.id))[0]?.status === "delivered");
    const [delivery] = await env.deliveries(hook.body.id);
    const path = `${env.hooks}/${hook.body.id}/deliveries/${delivery.id}/redeliver`;
    const again = await env.call("POST", path, { as: env.alice });
    assert.equal(again.status, 200);
    await receiver.waitFor(2);
    assert.equal(receiver.received[1]?.headers["webhook-id"], delivery.id);
    const missing = await env.call(
      "POST",
      `${env.hooks}/${hook.body.id}/deliveries/${env.formId}/redeliver`,
      { as: env.alice },
    );
    assert.equal(missing.status, 404);
  });
});
