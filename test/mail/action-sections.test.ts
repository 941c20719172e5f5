import assert from "node:assert/strict";
import { test } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createSmtpMailer } from "../../adapters/smtp/index.ts";
import type { FormRecord } from "../../src/domain/forms/form-record.ts";
import { collections } from "../../src/domain/records/collections.ts";
import { createFormService } from "../../src/index.ts";
import { settingsPath } from "../form-fixture.ts";
import { request } from "../helpers.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { flagsOf, withActionForm } from "./action-setup.ts";
import { startInbox } from "./smtp-inbox.ts";

type Env = Awaited<ReturnType<typeof withActionForm>>;

/** F2 of one section as alice. */
const setSection = (env: Env, section: string, body: unknown) =>
  env.call("POST", settingsPath(env.formId, section), { as: env.alice, body });

/** The paths of a 400's issues, after checking it is one. */
function badPaths(answer: { status: number; body: Record<string, unknown> }) {
  assert.equal(answer.status, 400, JSON.stringify(answer.body));
  assert.equal(answer.body.error, "validation_failed");
  // A value may break several rules of its path (not a URL, nor http): each path once.
  const paths = (answer.body.issues as { path: string }[]).map((issue) => issue.path);
  return [...new Set(paths)].sort();
}

test("F2 refuses a confirmation e-mail section with each bad path named", async () => {
  const env = await withActionForm();
  const tooMany = Array.from({ length: 21 }, (_, n) => `guest${n}@example.com`);
  const cases: [unknown, string[]][] = [
    [{ enabled: true }, ["recipient_field"]],
    [{ enabled: true, recipient_field: "name_2" }, ["recipient_field"]],
    [{ enabled: true, recipient_field: "gone_9" }, ["recipient_field"]],
    [
      {
        enabled: true,
        recipient_field: "email_1",
        additional_recipients: ["ok@example.com", "not an address", "a@b.co, c@d.co"],
        reply_to: "nobody",
      },
      ["additional_recipients.1", "additional_recipients.2", "reply_to"],
    ],
    [{ recipient_field: "email_1", additional_recipients: tooMany }, ["additional_recipients"]],
    [
      { recipient_field: "email_1", subject: "Thanks {{#name_2}}", body_text: "{{name_2" },
      ["body_text", "subject"],
    ],
    [{ recipient_field: "email_1", subject: "x".repeat(999) }, ["subject"]],
    [{ recipient_field: "email_1", body_text: "x".repeat(20_001) }, ["body_text"]],
    [{ recipient_field: "email_1", body_text: nested(33) }, ["body_text"]],
    [{ enabled: "yes", recipient_field: "email_1" }, ["enabled"]],
  ];
  for (const [body, paths] of cases) {
    const answer = await setSection(env, "confirmationemailsettings", body);
    assert.deepEqual(badPaths(answer), paths, JSON.stringify(body));
  }
  const good = {
    enabled: true,
    recipient_field: "email_1",
    additional_recipients: ["Office@Example.com"],
    reply_to: "desk@example.com",
    subject: "{{form_name}}",
    body_text: "{{#name_2}}Hi {{name_2}}{{/name_2}}",
  };
  const saved = await setSection(env, "confirmationemailsettings", good);
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  const deep = await setSection(env, "confirmationemailsettings", {
    ...good,
    body_text: nested(33),
  });
  assert.deepEqual(deep.body.issues, [
    { path: "body_text", message: "must not nest sections more than 32 deep" },
  ]);
  const deepest = await setSection(env, "confirmationemailsettings", {
    ...good,
    body_text: nested(32),
  });
  assert.equal(deepest.status, 200, JSON.stringify(deepest.body));
});

/** A template of `depth` sections, one inside the other. */
function nested(depth: number) {
  return `${"{{#name_2}}".repeat(depth)}{{name_2}}${"{{/name_2}}".repeat(depth)}`;
}

test("F2 refuses a destination section with each bad path named", async () => {
  const env = await withActionForm();
  const cases: [unknown, string[]][] = [
    [{ enabled: true }, ["destination_url"]],
    [{ enabled: true, destination_url: "ftp://example.com/x" }, ["destination_url"]],
    [{ enabled: true, destination_url: "not a url" }, ["destination_url"]],
    [{ enabled: true, destination_url: "https://user:pw@example.com/" }, ["destination_url"]],
    [
      { destination_url: "https://example.com/", http_header_key: "x-api-key" },
      ["http_header_key"],
    ],
    [{ destination_url: "https://example.com/", http_header_value: "k3y" }, ["http_header_key"]],
    [
      {
        destination_url: "https://example.com/",
        http_header_key: "bad key",
        http_header_value: "k3y\r\nx-evil: 1",
      },
      ["http_header_key", "http_header_value"],
    ],
    [
      { destination_url: "https://example.com/", http_header_key: "Host", http_header_value: "a" },
      ["http_header_key"],
    ],
  ];
  for (const [body, paths] of cases) {
    const answer = await setSection(env, "destinationsettings", body);
    assert.deepEqual(badPaths(answer), paths, JSON.stringify(body));
  }
  const good = {
    enabled: true,
    destination_url: " https://crm.example.com/in ",
    http_header_key: "x-api-key",
    http_header_value: "k3y",
  };
  const saved = await setSection(env, "destinationsettings", good);
  assert.equal(saved.status, 200, JSON.stringify(saved.body));
  // Off, with no URL: kept as given.
  assert.equal((await setSection(env, "destinationsettings", { enabled: false })).status, 200);
});

test("a confirmation whose recipient field was removed since sends nothing, and S2 succeeds", async (t) => {
  const inbox = await startInbox();
  t.after(inbox.close);
  const receiver = await startReceiver([200]);
  const env = await withActionForm({ smtpUrl: inbox.url });
  await env.confirm();
  await env.destination(receiver.url);
  const fields = [{ unique_system_name: "name_2", type: "text", label: "Name" }];
  const replaced = await env.call("POST", `/api/restricted/form/${env.formId}`, {
    as: env.alice,
    body: {
      form_configuration: { settings: { form_name: "Tea & cake", form_type: "classicsingle" } },
      form_definition: { pages: [{ fields }] },
    },
  });
  assert.equal(replaced.status, 200, JSON.stringify(replaced.body));
  const posted = await env.call("POST", `/api/form/${env.formId}/submission`, {
    body: { form_fields: [{ unique_system_name: "name_2", submitted_value: "Ann" }] },
  });
  assert.deepEqual(flagsOf(posted), { email: false, destination: false });
  assert.equal(inbox.received.length, 0);
  await receiver.waitFor(1);
});

test("sections stored before F2 checked them (a broken template, a bad header) fail nothing", async (t) => {
  const inbox = await startInbox();
  t.after(inbox.close);
  const receiver = await startReceiver([200]);
  const store = createMemoryStore();
  const env = await withActionForm({ smtpUrl: inbox.url, extra: { store } });
  const stored = await store.get<FormRecord>(collections.forms, env.formId, env.formId);
  assert.ok(stored);
  const form = stored.record;
  form.form_configuration.confirmationemailsettings = {
    enabled: true,
    recipient_field: "email_1",
    subject: "Thanks {{#name_2}}",
  };
  form.form_configuration.destinationsettings = {
    enabled: true,
    destination_url: receiver.url,
    http_header_key: "x-api-key",
    http_header_value: "k3y\r\nx-evil: 1",
  };
  await store.replace(collections.forms, env.formId, form);
  // Another instance over the store: it reads the form as stored.
  const other = createFormService({
    store,
    mailer: createSmtpMailer({ url: inbox.url, from: "f@example.com" }),
    webhookPollMs: 0,
  });
  t.after(() => other.close());
  const posted = await request(other, "POST", `/api/form/${env.formId}/submission`, {
    body: { form_fields: [{ unique_system_name: "email_1", submitted_value: "ann@example.com" }] },
  });
  assert.deepEqual(flagsOf(posted), { email: false, destination: false });
  assert.equal(inbox.received.length, 0);
  assert.equal(receiver.received.length, 0);
});
