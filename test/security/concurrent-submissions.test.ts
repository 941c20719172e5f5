/**
 * 1,000 submissions (S2) to one form at once, each from its own client address, in process
 * on the memory store and on lowdb: none answers a 5xx, and the store holds exactly the
 * submissions that were acknowledged.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { conformingFetch, formInput, request, type TestUser } from "../helpers.ts";

async function submitAtOnce(store: Store, count: number) {
  const service = createFormService({
    store,
    allowPrivateWebhookDestinations: true,
    webhookPollMs: 0,
    sweepIntervalMs: 0,
  });
  try {
    const owner = (await service.admin.createAccount({ email: "owner@example.com" })) as TestUser;
    const field = { unique_system_name: "name_1", type: "text", label: "Name" };
    const form = await request(service, "POST", "/api/restricted/form", {
      as: owner,
      body: formInput("Crowd", [field]),
    });
    const formId: string = form.body.id;
    const hook = await request(
      service,
      "POST",
      `/api/restricted/form/${formId}/submissionwebhook`,
      {
        as: owner,
        body: { webhook_name: "Hook", webhook_destination_url: "http://127.0.0.1:9/hook" },
      },
    );
    assert.equal(hook.status, 200, JSON.stringify(hook.body));
    const submit = async (n: number) => {
      const response = await conformingFetch(service)(
        new Request(`http://localhost/api/form/${formId}/submission`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({
            form_fields: [{ unique_system_name: "name_1", submitted_value: `person ${n}` }],
          }),
        }),
        { clientAddress: `10.0.${n >> 8}.${n & 255}` },
      );
      return { status: response.status, body: await response.json() };
    };
    const answers = await Promise.all(Array.from({ length: count }, (_, n) => submit(n)));
    const statuses = new Map<number, number>();
    for (const { status } of answers) statuses.set(status, (statuses.get(status) ?? 0) + 1);
    assert.deepEqual(
      Object.fromEntries(statuses),
      { 200: count },
      JSON.stringify(answers.find((a) => a.status !== 200)),
    );
    const listed = await request(
      service,
      "GET",
      `/api/restricted/form/${formId}/submissions?batchSize=1000`,
      { as: owner },
    );
    const stored = new Set(listed.body.results.map((s: { id: string }) => s.id));
    const acknowledged = new Set(answers.map((a) => a.body.id));
    assert.equal(stored.size, count);
    assert.deepEqual(stored, acknowledged);
  } finally {
    await service.close();
  }
}

describe("1,000 concurrent submissions", () => {
  it("are all stored on the memory store, with no 5xx", async () => {
    await submitAtOnce(createMemoryStore(), 1000);
  });

  it("are all stored on lowdb, with no 5xx", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-crowd-"));
    try {
      await submitAtOnce(createLowdbStore({ directory }), 1000);
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  });
});
