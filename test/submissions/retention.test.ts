/**
 * Retention per form (docs/design.md §15): `securitysettings.submission_retention_days`, and
 * the sweep that deletes older submissions as S7 does, with their files, the counts and the
 * storage they hold, on every store, with a clock the test moves.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createMemoryBlobStore, createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { queryAll } from "../../src/ports/query-all.ts";
import { formInput, request, type Send, uploadBytes } from "../helpers.ts";
import { customerBody, partnerCalls, tokenSecret } from "../partners/setup.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name" },
  { unique_system_name: "session_2", type: "radio", label: "Session", options: ["am", "pm"] },
  { unique_system_name: "cv_3", type: "file", label: "CV", max_files: 1, max_file_size: 1000 },
];
const day = 24 * 60 * 60 * 1000;
const settingsPath = (formId: string, section: string) =>
  `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=${section}`;

type Counts = Record<string, number>;

/** A partner customer's form with a limited option and a file field, over `store`. */
async function world(store: Store, sweepIntervalMs = 0) {
  const clock = { now: new Date("2026-09-01T10:00:00.000Z") };
  const blobs = createMemoryBlobStore({
    storageUrl: "http://localhost/storage",
    now: () => clock.now,
  });
  const service = createFormService({
    store: serviceQueriesOnly(store),
    blobs,
    now: () => clock.now,
    sweepIntervalMs,
    webhookPollMs: 0,
    allowPrivateWebhookDestinations: true,
    partners: { tokenSecret },
  });
  after(() => service.close().catch(() => {}));
  const call = (method: string, path: string, send: Send = {}) =>
    request(service, method, path, send);
  const partner = await service.admin.createPartner({ name: "Acme" });
  const calls = partnerCalls(call, partner);
  const customerId = await calls.addCustomer(customerBody("carla@example.com", { storage: 5000 }));
  // Logged in at each call: a login token lasts less than the days the clock moves.
  const asCarla = async (method: string, path: string, send: Send = {}) =>
    calls.asCustomer(await calls.login("carla@example.com"), method, path, send);
  const created = await asCarla("POST", "/api/restricted/form", {
    body: formInput("Sessions", fields),
  });
  assert.equal(created.status, 200, JSON.stringify(created.body));
  const formId: string = created.body.id;
  const limited = await asCarla("POST", settingsPath(formId, "quantitylimitsettings"), {
    body: { inventory: [{ unique_system_name: "session_2", option: "am", quantity: 10 }] },
  });
  assert.equal(limited.status, 200, JSON.stringify(limited.body));
  const security = (body: unknown) =>
    asCarla("POST", settingsPath(formId, "securitysettings"), { body });
  /** S2 at the clock's time, with a file of `bytes` when given: its id and the file's. */
  const submit = async (name: string, bytes?: number) => {
    const values = [
      { unique_system_name: "name_1", submitted_value: name },
      { unique_system_name: "session_2", submitted_value: "am" },
    ];
    let file: string | undefined;
    if (bytes) {
      const uploaded = await uploadBytes(service, formId, "cv_3", bytes);
      assert.equal(uploaded.status, 200);
      file = uploaded.body.id as string;
      values.push({ unique_system_name: "cv_3", submitted_value: file });
    }
    const posted = await call("POST", `/api/form/${formId}/submission`, {
      body: { form_fields: values },
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    return { id: posted.body.id as string, file };
  };
  const counts = async (collection: string, partition: string, id: string): Promise<Counts> =>
    (await store.get<{ id: string; counts: Counts }>(collection, partition, id))?.record.counts ??
    {};
  const month = (at: Date) => `monthly_form_submissions:${at.toISOString().slice(0, 7)}`;
  const state = async (postedIn: Date) => ({
    form: await counts("form_counters", formId, formId),
    storage: (await counts("customer_counters", customerId, "total_file_storage")).used ?? 0,
    monthly: (await counts("customer_counters", customerId, month(postedIn))).used ?? 0,
    stored: (await queryAll<{ id: string }>(store, "submissions", formId)).map((one) => one.id),
    files: await queryAll<{ id: string; file_size: number }>(store, "attachments", formId),
  });
  /** S5's ids, sorted. */
  const listed = async () => {
    const page = await asCarla("GET", `/api/restricted/form/${formId}/submissions?batchSize=100`);
    assert.equal(page.status, 200);
    return (page.body.results as { id: string }[]).map((one) => one.id).sort();
  };
  const read = (id: string) => asCarla("GET", `/api/restricted/form/${formId}/submission/${id}`);
  const at = (days: number) => {
    clock.now = new Date(Date.parse("2026-09-01T10:00:00.000Z") + days * day);
  };
  return {
    service,
    blobs,
    clock,
    at,
    call,
    asCarla,
    formId,
    security,
    submit,
    state,
    listed,
    read,
  };
}

/** The ids of the retention registry (`retention_forms`), sorted. */
async function registered(store: Store) {
  const entries = await queryAll<{ id: string }>(store, "retention_forms", "all");
  return entries.map((entry) => entry.id).sort();
}

describe("retention per form: securitysettings.submission_retention_days", () => {
  it("refuses a retention that is not a whole number of days from 1 to 3650, naming the field", async () => {
    const env = await world(createMemoryStore({ freezeWrites: true }));
    for (const bad of [0, 3651, 1.5, "30", -1, true]) {
      const answer = await env.security({ submission_retention_days: bad });
      assert.equal(answer.status, 400, JSON.stringify(bad));
      assert.equal(answer.body.error, "validation_failed");
      assert.equal(answer.body.action_successful, false);
      assert.deepEqual(answer.body.issues, [
        {
          path: "submission_retention_days",
          message:
            "must be a whole number of days from 1 to 3650, or null to keep submissions for ever",
        },
      ]);
    }
    for (const good of [1, 3650, null]) {
      const answer = await env.security({ submission_retention_days: good });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
    }
    // F5 shows anonymous callers nothing of it.
    await env.security({ submission_retention_days: 30 });
    const rendered = await env.call("GET", `/api/form/${env.formId}`);
    assert.equal(rendered.status, 200);
    assert.equal(JSON.stringify(rendered.body).includes("retention"), false);
  });
});

describe("retention per form: the sweep", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`deletes submissions past the retention with their files, giving back exactly what they held (${name})`, async () => {
      const store = await open();
      const env = await world(store);
      const hook = await env.asCarla(
        "POST",
        `/api/restricted/form/${env.formId}/submissionwebhook`,
        {
          body: {
            webhook_name: "deleted",
            webhook_url: "http://127.0.0.1:9/hook",
            events: ["form_submission.deleted"],
          },
        },
      );
      assert.equal(hook.status, 200, JSON.stringify(hook.body));
      assert.equal((await env.security({ submission_retention_days: 30 })).status, 200);
      assert.deepEqual(await registered(store), [env.formId]);
      const posted = env.clock.now;
      const a = await env.submit("a", 300);
      const b = await env.submit("b");
      env.at(10);
      const c = await env.submit("c", 200);
      env.at(25);
      const d = await env.submit("d");
      const before = await env.state(posted);
      assert.equal(before.form.submissions, 4);
      assert.equal(before.form["inventory:session_2:am"], 4);
      assert.equal(before.storage, 500);
      assert.equal(before.monthly, 4);

      // Day 36: a (day 0) and b (day 0) are past 30 days; c (day 10) and d (day 25) are not.
      env.at(36);
      const link = await env.asCarla(
        "GET",
        `/api/restricted/form/${env.formId}/submissionattachment/${a.file}`,
      );
      assert.equal(link.status, 200);
      assert.equal((await env.service.fetch(new Request(link.body.id))).status, 200);
      // The whole sweep, as its timer runs it.
      await env.service.sweepAttachments();

      assert.deepEqual(await env.listed(), [c.id, d.id].sort());
      assert.equal((await env.read(a.id)).status, 404);
      assert.equal((await env.read(b.id)).status, 404);
      assert.equal((await env.read(c.id)).status, 200);
      assert.equal((await env.service.fetch(new Request(link.body.id))).status, 404);
      assert.equal(await env.blobs.get(env.formId, a.file as string), null);
      const gone = await env.asCarla(
        "GET",
        `/api/restricted/form/${env.formId}/submissionattachment/${a.file}`,
      );
      assert.equal(gone.status, 404);
      const after36 = await env.state(posted);
      assert.deepEqual(after36.stored.sort(), [c.id, d.id].sort());
      assert.equal(after36.form.submissions, 2);
      assert.equal(after36.form["inventory:session_2:am"], 2);
      assert.equal(after36.storage, 200, "a's 300 bytes are given back");
      assert.deepEqual(
        after36.files.map((file) => file.id),
        [c.file],
      );
      // Submissions a month are counted when posted and never given back (docs/design.md §6).
      assert.equal(after36.monthly, 4);
      // Each deletion is announced as S7's is.
      const deliveries = await queryAll<{ id: string; event_type: string; submission_id: string }>(
        store,
        "webhook_deliveries",
        hook.body.id,
      );
      assert.deepEqual(
        deliveries.map((one) => `${one.event_type} ${one.submission_id}`).sort(),
        [a.id, b.id].map((id) => `form_submission.deleted ${id}`).sort(),
      );
      // And recorded in the audit trail, by the system (docs/design.md §25).
      const audit = await queryAll<{
        id: string;
        action: string;
        actor: string;
        target_ids: string[];
      }>(store, "audit_entries", env.formId);
      assert.deepEqual(
        audit
          .filter((entry) => entry.action === "retention_deleted")
          .map((entry) => `${entry.actor} ${entry.target_ids.join(",")}`)
          .sort(),
        [a.id, b.id].map((id) => `system ${id}`).sort(),
      );

      // Day 45: c goes too, d stays; a sweep with nothing to do changes nothing.
      env.at(45);
      await env.service.sweepRetention();
      await env.service.sweepRetention();
      assert.deepEqual(await env.listed(), [d.id]);
      const after45 = await env.state(posted);
      assert.equal(after45.form.submissions, 1);
      assert.equal(after45.form["inventory:session_2:am"], 1);
      assert.equal(after45.storage, 0);
      assert.deepEqual(after45.files, []);
      assert.equal(after45.monthly, 4);
      assert.deepEqual(await registered(store), [env.formId]);
    });

    it(`keeps everything without a retention, or once it is removed, and registers clones (${name})`, async () => {
      const store = await open();
      const env = await world(store);
      const old = await env.submit("old");
      // Set and removed again (F2 replaces the section whole): nothing is deleted.
      assert.equal((await env.security({ submission_retention_days: 1 })).status, 200);
      assert.equal((await env.security({ requires_login: false })).status, 200);
      env.at(400);
      await env.service.sweepRetention();
      assert.deepEqual(await env.listed(), [old.id]);
      // The entry of a form without a retention is dropped once the sweep read the form.
      assert.deepEqual(await registered(store), []);

      // A clone of a form with a retention has it too, and is swept.
      assert.equal((await env.security({ submission_retention_days: 7 })).status, 200);
      const cloned = await env.asCarla("POST", `/api/restricted/form/${env.formId}/clone`);
      assert.equal(cloned.status, 200, JSON.stringify(cloned.body));
      const cloneId: string = cloned.body.id;
      assert.deepEqual(await registered(store), [env.formId, cloneId].sort());
      const posted = await env.call("POST", `/api/form/${cloneId}/submission`, {
        body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "x" }] },
      });
      assert.equal(posted.status, 200);
      env.at(408);
      await env.service.sweepRetention();
      assert.deepEqual(await env.listed(), []);
      const clone = await env.asCarla("GET", `/api/restricted/form/${cloneId}/submissions`);
      assert.deepEqual(clone.body.results, []);
    });
  }
});

describe("retention per form: the sweep's timer", () => {
  it("runs the retention sweep by itself, first soon after the start", async () => {
    const env = await world(createMemoryStore({ freezeWrites: true }), 50);
    assert.equal((await env.security({ submission_retention_days: 2 })).status, 200);
    await env.submit("old", 100);
    env.at(3);
    const kept = await env.submit("kept");
    const deadline = Date.now() + 5000;
    while ((await env.listed()).length > 1 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(await env.listed(), [kept.id]);
  });
});
