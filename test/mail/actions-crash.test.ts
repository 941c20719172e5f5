import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createSmtpMailer } from "../../adapters/smtp/index.ts";
import { collections } from "../../src/domain/records/collections.ts";
import {
  createFormService,
  createHttpWebhookSender,
  type FormServiceOptions,
} from "../../src/index.ts";
import type { Store } from "../../src/ports/store.ts";
import { crashingStore } from "../crashing-store.ts";
import { request } from "../helpers.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { withActionForm } from "./action-setup.ts";
import { downServerUrl, startInbox } from "./smtp-inbox.ts";

/**
 * `inner`, until, once armed, a write of a submission lands (S2's, or the S6 that clears the
 * draft flag, alone or in a batch): then the process "dies".
 */
function crashAfterSubmissionWrite(inner: Store) {
  return crashingStore(inner, (name, args) => {
    const written =
      name === "batch"
        ? (args[0] as { collection: string }[]).map((op) => op.collection)
        : name === "create" || name === "replace"
          ? [args[0]]
          : [];
    return written.includes(collections.submissions);
  });
}

/** A service over the lowdb folder, its clock `aheadMs` ahead, mailing `smtpUrl`. */
function serviceOver(directory: string, smtpUrl: string, aheadMs: number) {
  const options: FormServiceOptions = {
    store: createLowdbStore({ directory }),
    allowPrivateWebhookDestinations: true,
    webhookSender: createHttpWebhookSender({ allowPrivateDestinations: true, retryBaseMs: 20 }),
    webhookPollMs: 50,
    mailer: createSmtpMailer({ url: smtpUrl, from: "Forms <forms@example.com>" }),
    mailRetry: { retryBaseMs: 20, retryMaxDelayMs: 100 },
    now: () => new Date(Date.now() + aheadMs),
  };
  return createFormService(options);
}

for (const through of ["S2", "S6 clearing the draft flag"]) {
  test(`a crash right after ${through}'s batch loses neither the e-mail nor the destination post`, async (t) => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-actions-crash-"));
    t.after(() => rm(directory, { recursive: true, force: true }));
    // Nothing answers at first, so the first attempts cannot deliver; both come up later.
    const smtpUrl = await downServerUrl();
    const destinationPort = Number(new URL(await downServerUrl()).port);
    const crashing = crashAfterSubmissionWrite(createLowdbStore({ directory }));
    const env = await withActionForm({
      smtpUrl,
      extra: {
        store: crashing.store,
        onError: () => {},
      },
    });
    await env.confirm();
    await env.destination(`http://127.0.0.1:${destinationPort}/crm`);
    if (through === "S2") crashing.arm();
    const answer = await env.submit("Ann", through !== "S2");
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    if (through !== "S2") {
      crashing.arm();
      const path = `/api/restricted/form/${env.formId}/submission/${answer.body.id}`;
      const body = { form_fields: [], is_draft_submission: false };
      const updated = await env.call("POST", path, { as: env.alice, body });
      assert.equal(updated.status, 200, JSON.stringify(updated.body));
    }
    await env.service.close();

    // The next start, past the hold S2 put on its actions: the worker delivers both.
    const inbox = await startInbox({ port: Number(new URL(smtpUrl).port) });
    t.after(inbox.close);
    const receiver = await startReceiver([200], false, destinationPort);
    const next = serviceOver(directory, smtpUrl, 120_000);
    t.after(() => next.close());
    await inbox.waitFor(1);
    await receiver.waitFor(1);
    const [mail] = inbox.received;
    assert.equal(mail?.mail.subject, "Tea &amp; cake: thanks Ann");
    const body = JSON.parse(receiver.received[0]?.body ?? "{}");
    assert.equal(body.form_submission.id, answer.body.id);
    const log = await request(
      next,
      "GET",
      `/api/restricted/form/${env.formId}/actions/email/deliveries`,
      {
        as: env.alice,
      },
    );
    const [delivery] = log.body.results;
    // Its Message-ID is its delivery id: the same on the attempt the crash cut short.
    assert.equal(mail?.mail.messageId, `<${delivery.id}@example.com>`);
  });
}
