/**
 * Amplification: a small template or expression a form's owner saved, times a large value an
 * anonymous S2 posts, must not make a large e-mail, submission or destination body, nor stall
 * the server (docs/design.md §11). The bounds here are generous: they tell a bounded render
 * from the hundreds of megabytes an unbounded one builds, and assert no timing finer than that.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFileMailer } from "../../examples/standalone/file-mailer.ts";
import {
  createFormService,
  createHttpWebhookSender,
  type FormServiceOptions,
} from "../../src/index.ts";
import { settingsPath } from "../form-fixture.ts";
import { formInput, request, type TestUser } from "../helpers.ts";
import { startReceiver } from "../webhooks/receiver.ts";

/** The size of the value the anonymous S2 posts. */
const valueBytes = 200_000;
/** The cap on a confirmation e-mail's body, with room for its headers in the `.eml`. */
const emlBytes = 64 * 1024 + 8 * 1024;
/** How much the process may grow over one S2: far below the gigabytes of an unbounded one. */
const rssRiseBytes = 100 * 1024 * 1024;

/** A form of `fields` (plus an e-mail field) owned by a fresh account, and S2 to it. */
async function formWith(fields: unknown[], options: Partial<FormServiceOptions>) {
  const service = createFormService({
    store: createMemoryStore(),
    allowPrivateWebhookDestinations: true,
    webhookSender: createHttpWebhookSender({ allowPrivateDestinations: true, maxAttempts: 2 }),
    webhookPollMs: 50,
    mailRetry: { retryBaseMs: 20, retryMaxDelayMs: 100, maxAttempts: 5 },
    onError: (error) => assert.fail(error instanceof Error ? error : String(error)),
    ...options,
  });
  after(() => service.close());
  const owner = (await service.admin.createAccount({ email: "owner@example.com" })) as TestUser;
  const email = { unique_system_name: "email_1", type: "email", label: "E-mail" };
  const form = await request(service, "POST", "/api/restricted/form", {
    as: owner,
    body: formInput("Amplified", [email, ...fields]),
  });
  assert.equal(form.status, 200, JSON.stringify(form.body));
  const formId: string = form.body.id;
  const setSection = async (section: string, body: unknown) => {
    const answer = await request(service, "POST", settingsPath(formId, section), {
      as: owner,
      body,
    });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  };
  /** One anonymous S2 with `values`; how long it took and how much the process grew. */
  const post = async (values: Record<string, string>) => {
    const form_fields = Object.entries({ email_1: "ann@example.com", ...values }).map(
      ([unique_system_name, submitted_value]) => ({ unique_system_name, submitted_value }),
    );
    const rss = process.memoryUsage().rss;
    const started = performance.now();
    const answer = await request(service, "POST", `/api/form/${formId}/submission`, {
      body: { form_fields },
    });
    const ms = performance.now() - started;
    return { answer, ms, rise: process.memoryUsage().rss - rss };
  };
  const log = async (action: string) =>
    request(service, "GET", `/api/restricted/form/${formId}/actions/${action}/deliveries`, {
      as: owner,
    });
  return { service, owner, formId, setSection, post, log };
}

const textarea = { unique_system_name: "gpi_6", type: "textarea", label: "Anything" };

test("a body of 2,000 {{gpi_6}} and a 200 kB value: S2 answers, the e-mail is refused and logged", async (t) => {
  const directory = await mkdtemp(join(tmpdir(), "formwork-amplification-"));
  t.after(() => rm(directory, { recursive: true, force: true }));
  const mailer = createFileMailer({ directory, from: "forms@example.com" });
  const env = await formWith([textarea], { mailer });
  const body_text = "{{gpi_6}}".repeat(2000);
  assert.ok(body_text.length <= 20_000, "within the template's source bound");
  await env.setSection("confirmationemailsettings", {
    enabled: true,
    recipient_field: "email_1",
    subject: "Your answers",
    body_text,
  });

  const { answer, ms, rise } = await env.post({ gpi_6: "x".repeat(valueBytes) });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.email_address_post_expected_but_failed, true);
  assert.ok(ms < 1000, `S2 took ${Math.round(ms)} ms`);
  assert.ok(rise < rssRiseBytes, `RSS rose by ${Math.round(rise / 1e6)} MB`);

  const files = await readdir(directory);
  for (const name of files) {
    const { size } = await stat(join(directory, name));
    assert.ok(size <= emlBytes, `${name} holds ${size} bytes`);
  }
  assert.deepEqual(
    files.filter((name) => name.endsWith(".eml")),
    [],
  );
  const [delivery, ...others] = (await env.log("email")).body.results;
  assert.equal(others.length, 0);
  assert.equal(delivery.status, "failed");
  assert.equal(delivery.submission_id, answer.body.id);
  assert.equal(delivery.attempts.length, 1);
  assert.equal(delivery.attempts[0].outcome, "refused");
  assert.match(delivery.attempts[0].message, /rendered body is larger than 65536 bytes/);
  assert.ok(JSON.stringify(delivery.payload).length < 1000, "the refused body is not kept");

  // Refused for good: the worker never tries it again, and a redelivery is refused the same.
  await new Promise((resolve) => setTimeout(resolve, 300));
  const [later] = (await env.log("email")).body.results;
  assert.equal(later.attempts.length, 1);
  const again = await request(
    env.service,
    "POST",
    `/api/restricted/form/${env.formId}/actions/email/deliveries/${delivery.id}/redeliver`,
    { as: env.owner },
  );
  assert.equal(again.status, 200, JSON.stringify(again.body));
  for (;;) {
    const [redelivered] = (await env.log("email")).body.results;
    if (redelivered.status === "failed") {
      assert.equal(redelivered.attempts.at(-1).outcome, "refused");
      break;
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.deepEqual(
    (await readdir(directory)).filter((name) => name.endsWith(".eml")),
    [],
  );
});

test("a calculation that repeats a 200 kB value 2,000 times: S2 answers, the bodies stay small", async (t) => {
  const receiver = await startReceiver([200]);
  t.after(receiver.close);
  const calculated = { unique_system_name: "calc_7", type: "text", label: "Echo" };
  const env = await formWith([textarea, calculated], {});
  const repeated = Array.from({ length: 2000 }, () => ({ var: "gpi_6" }));
  await env.setSection("calculatedfieldsettings", {
    fields: [{ unique_system_name: "calc_7", expression: { cat: repeated } }],
  });
  await env.setSection("destinationsettings", { enabled: true, destination_url: receiver.url });
  const webhook = await request(
    env.service,
    "POST",
    `/api/restricted/form/${env.formId}/submissionwebhook`,
    {
      as: env.owner,
      body: { webhook_name: "echo", webhook_destination_url: receiver.url },
    },
  );
  assert.equal(webhook.status, 200, JSON.stringify(webhook.body));

  const { answer, ms, rise } = await env.post({ gpi_6: "x".repeat(valueBytes) });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  assert.equal(answer.body.cloud_database_post_expected_but_failed, false);
  assert.ok(ms < 1000, `S2 took ${Math.round(ms)} ms`);
  assert.ok(rise < rssRiseBytes, `RSS rose by ${Math.round(rise / 1e6)} MB`);

  // The destination post and the webhook's: each holds the value and its words for search
  // (`search_words`), so at most twice what was posted, never 2,000 times.
  await receiver.waitFor(2);
  for (const { body } of receiver.received) {
    assert.ok(body.length < 2 * valueBytes + 10_000, `a body of ${body.length} bytes`);
    const sent = JSON.parse(body);
    const submission = sent.form_submission ?? sent.data.form_submission;
    const calc = submission.form_fields.find(
      (field: { unique_system_name: string }) => field.unique_system_name === "calc_7",
    );
    assert.equal(calc.submitted_value, "");
  }
});

test("a draft made a submission by S6 logs the e-mail past its bound as refused too", async () => {
  const env = await formWith([textarea], {});
  await env.setSection("confirmationemailsettings", {
    enabled: true,
    recipient_field: "email_1",
    body_text: "{{gpi_6}}".repeat(2000),
  });
  const form_fields = [
    { unique_system_name: "email_1", submitted_value: "ann@example.com" },
    { unique_system_name: "gpi_6", submitted_value: "x".repeat(valueBytes) },
  ];
  const draft = await request(env.service, "POST", `/api/form/${env.formId}/submission`, {
    body: { form_fields, is_draft_submission: true },
  });
  assert.equal(draft.status, 200, JSON.stringify(draft.body));
  assert.equal((await env.log("email")).body.results.length, 0);
  const path = `/api/restricted/form/${env.formId}/submission/${draft.body.id}`;
  const updated = await request(env.service, "POST", path, {
    as: env.owner,
    body: { form_fields, is_draft_submission: false },
  });
  assert.equal(updated.status, 200, JSON.stringify(updated.body));
  const [delivery] = (await env.log("email")).body.results;
  assert.equal(delivery.status, "failed");
  assert.match(delivery.attempts[0].message, /rendered body is larger than 65536 bytes/);
});
