import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { collections } from "../../src/context.ts";
import {
  createFormService,
  createHttpWebhookSender,
  createSmtpMailer,
  type FormServiceOptions,
} from "../../src/index.ts";
import type { Store } from "../../src/ports/store.ts";
import { request } from "../helpers.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { withActionForm } from "./action-setup.ts";
import { downServerUrl, startInbox } from "./smtp-inbox.ts";

/**
 * `inner`, until a batch that stores a submission lands: from then on every call fails, as
 * if the process had died at that instant, and `close` only closes `inner`.
 */
function crashAfterSubmissionBatch(inner: Store): Store {
  let crashed = false;
  return new Proxy(inner, {
    get(target, name, receiver) {
      const value = Reflect.get(target, name, receiver);
      if (typeof value !== "function") return value;
      if (name === "close") return () => target.close();
      return async (...args: unknown[]) => {
        if (crashed) throw new Error("the process died");
        const answer = await value.apply(target, args);
        const ops = name === "batch" ? (args[0] as { collection: string; op: string }[]) : [];
        if (ops.some((op) => op.collection === collections.submissions && op.op === "create")) {
          crashed = true;
        }
        return answer;
      };
    },
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

test("a crash right after S2's batch loses neither the e-mail nor the destination post", async (t) => {
  const directory = await mkdtemp(join(tmpdir(), "formwork-actions-crash-"));
  t.after(() => rm(directory, { recursive: true, force: true }));
  // Nothing answers at first, so the first attempts cannot deliver; both come up later.
  const smtpUrl = await downServerUrl();
  const destinationPort = Number(new URL(await downServerUrl()).port);
  const env = await withActionForm({
    smtpUrl,
    extra: {
      store: crashAfterSubmissionBatch(createLowdbStore({ directory })),
      onError: () => {},
    },
  });
  await env.confirm();
  await env.destination(`http://127.0.0.1:${destinationPort}/crm`);
  const answer = await env.submit();
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
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
