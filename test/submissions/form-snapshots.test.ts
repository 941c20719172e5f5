/**
 * S2 holds forms and their webhooks in memory (src/domain/forms/form-snapshots.ts): a change made
 * through one service instance shows in the next S2 of another on the same store, and a
 * text-only S2 to a form already held costs two store calls, and concurrent ones one batch each.
 */

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { outboxPartitions } from "../../src/domain/webhooks/outbox-partitions.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { countingStore } from "../counting-store.ts";
import { settingsPath } from "../form-fixture.ts";
import { formInput, request, type TestUser } from "../helpers.ts";
import { storeKinds } from "../store-kinds.ts";

/** Two service instances over one store, an owner, and a form with one text field. */
async function twoInstances(store: Store) {
  const options = { store, webhookPollMs: 0, allowPrivateWebhookDestinations: true };
  const first = createFormService(options);
  const second = createFormService(options);
  const alice = (await first.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const field = { unique_system_name: "name_1", type: "text", label: "Name" };
  const form = await request(second, "POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Held", [field]),
  });
  assert.equal(form.status, 200);
  const formId = form.body.id as string;
  const submit = (service: FormService, name = "Ada") =>
    request(service, "POST", `/api/form/${formId}/submission`, {
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: name }] },
    });
  const close = () => Promise.all([first.close(), second.close()]);
  return { first, second, alice, formId, submit, close };
}

describe("forms held for S2", () => {
  it("see a form's settings changed through another instance in the next S2", async () => {
    const env = await twoInstances(createMemoryStore());
    try {
      assert.equal((await env.submit(env.first)).status, 200);
      const disable = await request(
        env.second,
        "POST",
        settingsPath(env.formId, "generalsettings"),
        {
          as: env.alice,
          body: { is_disabled: true },
        },
      );
      assert.equal(disable.status, 200);
      const refused = await env.submit(env.first);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, "form_disabled");
      await request(env.first, "POST", settingsPath(env.formId, "generalsettings"), {
        as: env.alice,
        body: { is_disabled: false },
      });
      assert.equal((await env.submit(env.second)).status, 200);
      assert.equal((await env.submit(env.first)).status, 200);
    } finally {
      await env.close();
    }
  });

  it("see a webhook added or removed through another instance in the next S2", async () => {
    const store = createMemoryStore();
    const env = await twoInstances(store);
    const deliveries = async (webhookId: string) =>
      (await store.query("webhook_deliveries", webhookId)).items.length;
    try {
      assert.equal((await env.submit(env.first)).status, 200);
      const hooks = `/api/restricted/form/${env.formId}/submissionwebhook`;
      const hook = await request(env.second, "POST", hooks, {
        as: env.alice,
        body: { webhook_name: "r", webhook_url: "http://127.0.0.1:9/hook" },
      });
      assert.equal(hook.status, 200);
      const webhookId = hook.body.id as string;
      assert.equal((await env.submit(env.first)).status, 200);
      assert.equal(await deliveries(webhookId), 1);
      const removed = await request(env.second, "DELETE", `${hooks}/${webhookId}`, {
        as: env.alice,
      });
      assert.equal(removed.status, 200);
      assert.equal((await env.submit(env.first)).status, 200);
      let queued = 0;
      for (const partition of outboxPartitions) {
        queued += (await store.query("webhook_outbox", partition)).items.length;
      }
      assert.equal(queued, 1);
    } finally {
      await env.close();
    }
  });

  it("refuse S2 to a form deleted through another instance", async () => {
    const env = await twoInstances(createMemoryStore());
    try {
      assert.equal((await env.submit(env.first)).status, 200);
      const path = settingsPath(env.formId, "generalsettingsdelete");
      const deleted = await request(env.second, "POST", path, { as: env.alice });
      assert.equal(deleted.status, 200);
      assert.equal((await env.submit(env.first)).status, 404);
    } finally {
      await env.close();
    }
  });

  for (const [kind, open] of storeKinds("memory", "lowdb")) {
    it(`make a text-only S2 to a held form in 2 store calls (${kind})`, async () => {
      const calls: string[] = [];
      const store = await open();
      const env = await twoInstances(countingStore(store, calls));
      try {
        assert.equal((await env.submit(env.first)).status, 200);
        calls.length = 0;
        assert.equal((await env.submit(env.first)).status, 200);
        // The counter read, then the counter and the submission written in one batch.
        assert.deepEqual(calls, ["get form_counters", "batch"]);
      } finally {
        await env.close();
      }
    });

    it(`write concurrent S2s to one form in one batch each (${kind})`, async () => {
      const calls: string[] = [];
      const store = await open();
      const env = await twoInstances(countingStore(store, calls));
      try {
        assert.equal((await env.submit(env.first)).status, 200);
        calls.length = 0;
        // Both instances of this process, on one store: posts take turns on the counter
        // (counter-turns.ts), so none reads an etag another post is about to change.
        const answers = await Promise.all(
          Array.from({ length: 40 }, (_, i) => env.submit(i % 2 ? env.first : env.second)),
        );
        assert.deepEqual(new Set(answers.map(({ status }) => status)), new Set([200]));
        assert.equal(calls.filter((call) => call === "batch").length, 40);
        const counter = await store.get<{ id: string; counts: Record<string, number> }>(
          "form_counters",
          env.formId,
          env.formId,
        );
        assert.equal(counter?.record.counts.submissions, 41);
      } finally {
        await env.close();
      }
    });
  }
});
