/**
 * A submission's edit history (docs/design.md §6): each S6 keeps what it replaced, listed by
 * `GET …/submission/{id}/history`, and S7 takes it away with the submission, on every store.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { historyTextBudget } from "../../src/domain/submissions/submission-history.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { formInput, request, type TestUser } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: false },
  { unique_system_name: "city_1", type: "text", label: "City", required: false },
];

async function world(store: Store) {
  const clock = { now: new Date("2026-11-01T10:00:00.000Z") };
  const service = createFormService({
    store: serviceQueriesOnly(store),
    now: () => clock.now,
    sweepIntervalMs: 0,
  });
  after(() => service.close().catch(() => {}));
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const created = await request(service, "POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Contact", fields),
  });
  const formId: string = created.body.id;
  const base = `/api/restricted/form/${formId}`;
  const posted = await request(service, "POST", `/api/form/${formId}/submission`, {
    body: {
      form_fields: [
        { unique_system_name: "name_1", submitted_value: "Ada" },
        { unique_system_name: "city_1", submitted_value: "London" },
      ],
      is_draft_submission: true,
    },
  });
  assert.equal(posted.status, 200);
  const path = `${base}/submission/${posted.body.id}`;
  const edit = (as: TestUser, body: unknown) => request(service, "POST", path, { as, body });
  const history = (as: TestUser) => request(service, "GET", `${path}/history`, { as });
  return { service, alice, formId, base, path, clock, edit, history };
}

async function collaborator(service: FormService, owner: TestUser, formId: string) {
  const bob = (await service.admin.createAccount({ email: "bob@example.com" })) as TestUser;
  const granted = await request(
    service,
    "POST",
    `/api/restricted/form/${formId}/usersecurity?has_reporting_full=1&collaborator_email=bob@example.com`,
    { as: owner },
  );
  assert.equal(granted.status, 200);
  return bob;
}

const field = (name: string, value: string) => ({
  form_fields: [{ unique_system_name: name, submitted_value: value }],
});

describe("submission edit history", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`keeps who changed which field, when, from what to what, and goes with S7 (${name})`, async () => {
      const env = await world(await open());
      const bob = await collaborator(env.service, env.alice, env.formId);
      const first = await env.history(env.alice);
      assert.equal(first.status, 200);
      assert.equal(first.body.current_version, 1);
      assert.deepEqual(first.body.versions, []);

      env.clock.now = new Date("2026-11-02T09:00:00.000Z");
      assert.equal((await env.edit(env.alice, field("name_1", "Ada L."))).status, 200);
      // An edit that changes nothing adds no version.
      assert.equal((await env.edit(env.alice, field("name_1", "Ada L."))).status, 200);
      env.clock.now = new Date("2026-11-03T09:00:00.000Z");
      const cleared = await env.edit(bob, {
        ...field("city_1", "Paris"),
        is_draft_submission: false,
      });
      assert.equal(cleared.status, 200);

      const listed = await env.history(bob);
      assert.equal(listed.status, 200);
      assert.equal(listed.body.current_version, 3);
      assert.equal(listed.body.dropped_versions, 0);
      assert.deepEqual(listed.body.versions, [
        {
          version: 3,
          edited_date_utc: "2026-11-03T09:00:00.000Z",
          edited_by_user_id: bob.user_id,
          changes: [{ unique_system_name: "city_1", from: "London", to: "Paris" }],
          draft_cleared: true,
        },
        {
          version: 2,
          edited_date_utc: "2026-11-02T09:00:00.000Z",
          edited_by_user_id: env.alice.user_id,
          changes: [{ unique_system_name: "name_1", from: "Ada", to: "Ada L." }],
        },
      ]);
      // The history is never part of what S1 and S5 show.
      const read = await request(env.service, "GET", env.path, { as: env.alice });
      assert.equal(read.body.form_submission.history, undefined);
      const page = await request(env.service, "GET", `${env.base}/submissions`, { as: env.alice });
      assert.deepEqual(
        Object.keys(page.body.results[0]).filter((k) => k.startsWith("history")),
        [],
      );

      assert.equal((await request(env.service, "DELETE", env.path, { as: env.alice })).status, 200);
      const gone = await env.history(env.alice);
      assert.equal(gone.status, 404);
    });
  }

  it("answers 404 for a submission of another form or none, and to a caller without a role", async () => {
    const env = await world(createMemoryStore({ freezeWrites: true }));
    const eve = (await env.service.admin.createAccount({ email: "eve@example.com" })) as TestUser;
    assert.equal((await env.history(eve)).status, 404);
    const missing = `${env.base}/submission/00000000-0000-7000-8000-000000000000/history`;
    assert.equal((await request(env.service, "GET", missing, { as: env.alice })).status, 404);
  });

  it("keeps at most its budget of text, dropping the oldest versions and counting them", async () => {
    const env = await world(createMemoryStore({ freezeWrites: true }));
    const long = (mark: string) => mark.repeat(20_000);
    for (const mark of "abcdefghijklmn") {
      assert.equal((await env.edit(env.alice, field("name_1", long(mark)))).status, 200);
    }
    const listed = await env.history(env.alice);
    const { versions, dropped_versions, current_version } = listed.body;
    assert.equal(current_version, 15);
    assert.ok(dropped_versions > 0, `dropped ${dropped_versions}`);
    assert.equal(versions.length + dropped_versions, 14);
    assert.equal(versions[0].version, 15);
    assert.equal(versions[0].changes[0].to, long("n"));
    const text = JSON.stringify(versions).length;
    assert.ok(text < historyTextBudget * 1.1, `history of ${text} characters`);
  });
});
