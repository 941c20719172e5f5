import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { storeKinds } from "../store-kinds.ts";
import { engineFields, withEngineForm } from "./fixture.ts";

const entry = { name_1: "Ada", diet_3: "any", email_9: "ada@example.com" };
const limited = (quantity: number) => ({
  quantitylimitsettings: {
    inventory: [{ unique_system_name: "session_8", option: "am", quantity }],
  },
});

async function remaining(env: Awaited<ReturnType<typeof withEngineForm>>) {
  const { body } = await env.call("GET", `/api/form/${env.formId}`);
  return body.form_configuration.quantitylimitsettings.inventory[0].remaining;
}

describe("form engine: inventory", () => {
  it("sells out an option, F5 shows what remains, and S7 gives it back", async () => {
    const env = await withEngineForm(limited(2));
    assert.equal(await remaining(env), 2);
    const first = await env.submit({ ...entry, session_8: "am" });
    assert.equal(first.status, 200);
    assert.equal((await env.submit({ ...entry, session_8: "am" })).status, 200);
    assert.equal(await remaining(env), 0);
    const refused = await env.submit({ ...entry, session_8: "am" });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error, "validation_failed");
    assert.deepEqual(refused.body.issues, [{ path: "session_8", message: "am is sold out" }]);
    assert.equal((await env.submit({ ...entry, session_8: "pm" })).status, 200);
    const deleted = await env.call(
      "DELETE",
      `/api/restricted/form/${env.formId}/submission/${first.body.id}`,
      { as: env.alice },
    );
    assert.equal(deleted.status, 200);
    assert.equal(await remaining(env), 1);
    assert.equal((await env.submit({ ...entry, session_8: "am" })).status, 200);
  });

  it("gives the inventory back when S2 fails after taking it", async () => {
    const fields = [...engineFields, { unique_system_name: "cv_11", type: "file", label: "CV" }];
    const env = await withEngineForm(limited(1), {}, fields);
    const unknownFile = "0b6a6a43-3c6e-4a8b-9a39-5c1a4c1b2d3e";
    const failed = await env.submit({ ...entry, session_8: "am", cv_11: unknownFile });
    assert.equal(failed.status, 400, JSON.stringify(failed.body));
    assert.equal(await remaining(env), 1);
    assert.equal((await env.submit({ ...entry, session_8: "am" })).status, 200);
  });

  const stores = storeKinds("lowdb", "cosmos");
  for (const [kind, create] of stores) {
    it(`stores exactly 10 of 30 concurrent posts for an option of 10 (${kind})`, {
      timeout: 120_000,
    }, async () => {
      const env = await withEngineForm(limited(10), {
        store: await create(),
        sweepIntervalMs: 0,
        webhookPollMs: 0,
      });
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => env.submit({ ...entry, session_8: "am" })),
      );
      const statuses = answers.map((a) => a.status).sort();
      assert.equal(statuses.filter((s) => s === 200).length, 10, JSON.stringify(statuses));
      assert.equal(statuses.filter((s) => s === 400).length, 20);
      const listed = await env.call("GET", `/api/restricted/form/${env.formId}/submissions`, {
        as: env.alice,
      });
      assert.equal(listed.body.results.length, 10);
      assert.equal(await remaining(env), 0);
      await env.service.close();
    });
  }
});
