/**
 * F5 and S2 take a form, and which of its datalists its owner holds, from the instance's
 * snapshot (src/domain/forms/form-snapshots.ts); the datalists' entries are read each time. A
 * change made through one service instance shows in the next F5 and S2 of another.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import { countingStore } from "../counting-store.ts";
import { settingsPath } from "../form-fixture.ts";
import { formInput, request, type TestUser } from "../helpers.ts";

/** Two instances over one store, and a form whose select draws on a datalist holding "red". */
async function twoInstances(calls: string[] = []) {
  const options = {
    store: countingStore(createMemoryStore(), calls),
    webhookPollMs: 0,
    allowPrivateWebhookDestinations: true,
  };
  const first = createFormService(options);
  const second = createFormService(options);
  const alice = (await first.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const list = await request(second, "POST", "/api/restricted/datalist", {
    as: alice,
    body: { settings: { list_name: "Colours" } },
  });
  const datalist = `/api/restricted/datalist/${list.body.id}`;
  const added = await request(second, "POST", `${datalist}/entry`, {
    as: alice,
    body: { entry_value: "red" },
  });
  assert.equal(added.status, 200);
  const field = { unique_system_name: "colour_1", type: "select", datalist_id: list.body.id };
  const form = await request(second, "POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Colours", [field]),
  });
  assert.equal(form.status, 200);
  const formId = form.body.id as string;
  const submit = (service: FormService, colour: string) =>
    request(service, "POST", `/api/form/${formId}/submission`, {
      body: { form_fields: [{ unique_system_name: "colour_1", submitted_value: colour }] },
    });
  const options_ = async (service: FormService) => {
    const rendered = await request(service, "GET", `/api/form/${formId}`);
    assert.equal(rendered.status, 200);
    return rendered.body.form_definition.pages[0].fields[0].options as string[];
  };
  const close = () => Promise.all([first.close(), second.close()]);
  return { first, second, alice, datalist, formId, submit, options: options_, close };
}

describe("datalists of forms held for F5 and S2", () => {
  it("see entries added and removed through another instance", async () => {
    const env = await twoInstances();
    try {
      assert.equal((await env.submit(env.first, "red")).status, 200);
      assert.deepEqual(await env.options(env.first), ["red"]);
      const blue = await request(env.second, "POST", `${env.datalist}/entry`, {
        as: env.alice,
        body: { entry_value: "blue" },
      });
      assert.equal(blue.status, 200);
      assert.deepEqual(await env.options(env.first), ["red", "blue"]);
      assert.equal((await env.submit(env.first, "blue")).status, 200);
      const entries = await request(env.second, "GET", `${env.datalist}/entries`, {
        as: env.alice,
      });
      const red = entries.body.results.find(
        (entry: { entry_value: string }) => entry.entry_value === "red",
      );
      const removed = await request(env.second, "DELETE", `${env.datalist}/entry/${red.id}`, {
        as: env.alice,
      });
      assert.equal(removed.status, 200);
      assert.deepEqual(await env.options(env.first), ["blue"]);
      const refused = await env.submit(env.first, "red");
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.issues, [
        { path: "colour_1", message: "is not one of the options" },
      ]);
    } finally {
      await env.close();
    }
  });

  it("see a datalist deleted through another instance", async () => {
    const env = await twoInstances();
    try {
      assert.equal((await env.submit(env.first, "red")).status, 200);
      assert.deepEqual(await env.options(env.first), ["red"]);
      const deleted = await request(env.second, "POST", `${env.datalist}?for_deletion=1`, {
        as: env.alice,
      });
      assert.equal(deleted.status, 200);
      assert.deepEqual(await env.options(env.first), []);
      assert.equal((await env.submit(env.first, "red")).status, 400);
    } finally {
      await env.close();
    }
  });

  it("render a form changed through another instance (F5)", async () => {
    const env = await twoInstances();
    try {
      assert.equal((await env.submit(env.first, "red")).status, 200);
      assert.deepEqual(await env.options(env.first), ["red"]);
      const disable = await request(
        env.second,
        "POST",
        settingsPath(env.formId, "generalsettings"),
        { as: env.alice, body: { is_disabled: true } },
      );
      assert.equal(disable.status, 200);
      const refused = await request(env.first, "GET", `/api/form/${env.formId}`);
      assert.equal(refused.status, 403);
      assert.equal(refused.body.error, "form_disabled");
    } finally {
      await env.close();
    }
  });

  it("make F5 and S2 of a held form read no datalist record", async () => {
    const calls: string[] = [];
    const env = await twoInstances(calls);
    try {
      assert.equal((await env.submit(env.first, "red")).status, 200);
      calls.length = 0;
      assert.deepEqual(await env.options(env.first), ["red"]);
      // The form's counter, then the datalist's entries.
      assert.deepEqual(calls, ["get form_counters", "query datalist_entries"]);
      calls.length = 0;
      assert.equal((await env.submit(env.first, "red")).status, 200);
      // The counter, the entry's lookup, then the counter and the submission in one batch.
      assert.deepEqual(calls, ["get form_counters", "query datalist_entries", "batch"]);
    } finally {
      await env.close();
    }
  });
});
