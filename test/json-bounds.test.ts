import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { createMemoryStore } from "../adapters/memory/index.ts";
import type { Store } from "../src/ports/index.ts";
import { conformingFetch, formInput, setup } from "./helpers.ts";

/** `{"a":{"a":…1…}}`, `levels` objects deep, built as text: no recursion anywhere. */
const nestedText = (levels: number) => `${'{"a":'.repeat(levels)}1${"}".repeat(levels)}`;

/** The same as a value, built in a loop. */
function nestedValue(levels: number): unknown {
  let value: unknown = 1;
  for (let n = 0; n < levels; n++) value = { a: value };
  return value;
}

const json = { "content-type": "application/json" };
const field = { unique_system_name: "name_1", type: "text", label: "Name" };
const section = (formId: string, name: string) =>
  `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=${name}`;

async function withForm(store: Store = createMemoryStore()) {
  const env = await setup({ store, sweepIntervalMs: 0, webhookPollMs: 0 });
  const owner = await env.user("owner@example.com");
  const form = await env.call("POST", "/api/restricted/form", {
    as: owner,
    body: formInput("Deep", [field]),
  });
  assert.equal(form.status, 200);
  return { ...env, store, owner, formId: form.body.id as string };
}

describe("free-form JSON is bounded on write (docs/design.md §8)", () => {
  it("keeps a section 32 levels deep and refuses 33 with a 400 naming the bound", async () => {
    const env = await withForm();
    const path = section(env.formId, "conditionallogicsettings");
    const ok = await env.call("POST", path, { as: env.owner, body: nestedText(32), headers: json });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const deep = await env.call("POST", path, {
      as: env.owner,
      body: nestedText(33),
      headers: json,
    });
    assert.equal(deep.status, 400);
    assert.equal(deep.body.error, "validation_failed");
    assert.deepEqual(deep.body.issues, [
      { path: "", message: "must not nest deeper than 32 levels" },
    ]);
  });

  it("refuses a section over 64 KB", async () => {
    const env = await withForm();
    const body = { note: "x".repeat(64 * 1024) };
    const answer = await env.call("POST", section(env.formId, "paymentsettings"), {
      as: env.owner,
      body,
    });
    assert.equal(answer.status, 400);
    assert.match(answer.body.issues[0].message, /at most 65536 bytes/);
  });

  it("refuses a definition nested past 32 levels, on create and on update", async () => {
    const env = await withForm();
    const deepField = { ...field, extra: nestedValue(40) };
    const created = await env.call("POST", "/api/restricted/form", {
      as: env.owner,
      body: formInput("Too deep", [deepField]),
    });
    assert.equal(created.status, 400);
    assert.equal(created.body.issues[0].path, "form_definition");
    const updated = await env.call("POST", `/api/restricted/form/${env.formId}/`, {
      as: env.owner,
      body: formInput("Too deep", [deepField]),
    });
    assert.equal(updated.status, 400);
  });

  it("answers a depth bomb on any JSON route with a 400, never a 500", async () => {
    const env = await withForm();
    const bomb = nestedText(100_000);
    for (const [path, as] of [
      [section(env.formId, "conditionallogicsettings"), env.owner],
      [`/api/form/${env.formId}/submission`, undefined],
      [`/api/restricted/form/${env.formId}/submissionwebhook`, env.owner],
      ["/api/restricted/datalist", env.owner],
      ["/api/restricted/form", env.owner],
    ] as const) {
      const answer = await env.call("POST", path, { as, body: bomb, headers: json });
      assert.equal(answer.status, 400, path);
      assert.equal(answer.body.error, "validation_failed", path);
    }
  });
});

/**
 * About the deepest section F2 stored before the bounds (the probe that found the defect saw
 * F2 itself fail from about 1,890 levels), and about what the stores can clone.
 */
const storedDepth = 1_900;

/** Writes a form's section straight into the store, as an older version let F2 do. */
async function storeSection(store: Store, formId: string, name: string, value: unknown) {
  const stored = await store.get<{ id: string; form_configuration: Record<string, unknown> }>(
    "forms",
    formId,
    formId,
  );
  assert.ok(stored);
  stored.record.form_configuration[name] = value;
  await store.replace("forms", formId, stored.record);
}

for (const [name, makeStore] of [
  ["memory", async () => ({ store: createMemoryStore(), done: async () => {} })],
  [
    "lowdb",
    async () => {
      const directory = await mkdtemp(join(tmpdir(), "formwork-bounds-"));
      const store = createLowdbStore({ directory });
      return { store, done: () => rm(directory, { recursive: true, force: true }) };
    },
  ],
] as const) {
  describe(`a form already holding a section past the bounds, on the ${name} store`, () => {
    it("still answers every read and write of the form (1,900 levels deep)", async () => {
      const { store, done } = await makeStore();
      const env = await withForm(store);
      await storeSection(store, env.formId, "conditionallogicsettings", nestedValue(storedDepth));
      const { formId, owner } = env;
      const f5 = await env.call("GET", `/api/form/${formId}`);
      assert.equal(f5.status, 200);
      assert.ok(!JSON.stringify(f5.body).includes('{"a":{"a":'), "the deep section is left out");
      const calls: [string, string, unknown?][] = [
        ["GET", `/api/form/${formId}`],
        ["POST", `/api/form/${formId}/submission`, { form_fields: [] }],
        ["GET", `/f/${formId}`],
        ["GET", "/api/restricted/user/form"],
        ["GET", `/api/restricted/form/${formId}/usersecurity`],
        ["GET", `/api/restricted/form/${formId}/submissions?includeFormDefinition=1`],
        ["POST", `/api/restricted/form/${formId}/clone`],
        ["POST", section(formId, "thankspagesettings"), { thanks_behaviour: "inline_message" }],
        ["POST", section(formId, "generalsettingsdelete")],
      ];
      for (const [method, path, body] of calls) {
        const answer = await conformingFetch(env.service)(
          new Request(`http://localhost${path}`, {
            method,
            headers: { TokenId: owner.token_id, TokenSecret: owner.token_secret, ...json },
            body: body === undefined ? undefined : JSON.stringify(body),
          }),
        );
        assert.equal(answer.status, 200, `${method} ${path}: ${await answer.text()}`);
      }
      // The section past the bounds is left out of what the service uses and answers.
      const rendered = await conformingFetch(env.service)(
        new Request(`http://localhost/api/form/${formId}`),
      );
      assert.equal(rendered.status, 404); // deleted by the last call above
      await env.service.close();
      await done();
    });
  });
}
