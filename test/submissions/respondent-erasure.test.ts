/**
 * Erasure and access by respondent (docs/design.md §6), on every store: the respondent index
 * finds a respondent's submissions across the caller's forms, case-insensitively; the erasure
 * leaves no trace of them (records, files, deliveries, outbox, history) and gives every count
 * back; only the forms the caller owns or manages are touched.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { Store } from "../../src/ports/store.ts";
import { crashingStore } from "../crashing-store.ts";
import type { TestUser } from "../helpers.ts";
import { storeKinds } from "../store-kinds.ts";
import { startReceiver } from "../webhooks/receiver.ts";
import { recordsOf, respondentWorld, storeText } from "./respondent-setup.ts";

const allEvents = ["form_submission.created", "form_submission.updated", "form_submission.deleted"];

const applicationFields = [
  { unique_system_name: "name_1", type: "text", label: "Name" },
  { unique_system_name: "email_2", type: "email", label: "E-mail" },
  { unique_system_name: "cv_3", type: "file", label: "CV", max_files: 1, max_file_size: 1000 },
];
const newsletterFields = [
  { unique_system_name: "contact_1", type: "email", label: "Contact" },
  { unique_system_name: "name_2", type: "text", label: "Name" },
];
const teaFields = [
  { unique_system_name: "name_1", type: "text", label: "Name" },
  { unique_system_name: "to_2", type: "email", label: "Send the confirmation to" },
];

/** Alice's three forms, a webhook for every event on the first, and Ada's and Bob's posts. */
async function threeForms(open: () => Promise<Store>) {
  const env = await respondentWorld(await open());
  const receiver = await startReceiver([200]);
  const alice = await env.user("alice@example.com");
  const apply = await env.newForm(alice, "Applications", applicationFields);
  const news = await env.newForm(alice, "Newsletter", newsletterFields);
  const tea = await env.newForm(alice, "Tea", teaFields);
  // No mailer: each confirmation is logged as refused, payload and all, in the form's log.
  await env.setSection(alice, tea, "confirmationemailsettings", {
    enabled: true,
    recipient_field: "to_2",
    subject: "Thanks {{name_1}}",
    body_text: "Hello {{name_1}}",
  });
  const hook = await env.call("POST", `/api/restricted/form/${apply}/submissionwebhook`, {
    as: alice,
    body: { webhook_name: "all", webhook_url: receiver.url, events: allEvents },
  });
  assert.equal(hook.status, 200);
  const file = await env.upload(apply, "cv_3");
  const ada = {
    apply: await env.submit(apply, { name_1: "Ada", email_2: "Ada@Example.com", cv_3: file }),
    news: await env.submit(news, { contact_1: "ADA@example.COM", name_2: "Ada" }),
    tea: await env.submit(tea, { name_1: "Ada", to_2: "ada@example.com" }),
  };
  const bob = {
    apply: await env.submit(apply, { name_1: "Bob", email_2: "bob@example.com" }),
    tea: await env.submit(tea, { name_1: "Bob", to_2: "bob@example.com" }),
  };
  await receiver.waitFor(2);
  return { ...env, receiver, alice, forms: { apply, news, tea }, file, ada, bob };
}

const submissionPath = (formId: string, id: string) =>
  `/api/restricted/form/${formId}/submission/${id}`;

/** The submission count in each form's counter record. */
async function countsOf(store: Store, formIds: string[]) {
  const counts: number[] = [];
  for (const formId of formIds) {
    const counter = await store.get<{ id: string; counts: Record<string, number> }>(
      "form_counters",
      formId,
      formId,
    );
    counts.push(counter?.record.counts.submissions ?? 0);
  }
  return counts;
}

describe("erasure by respondent", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`deletes one respondent's submissions across three forms and leaves no trace (${name})`, async () => {
      const env = await threeForms(open);
      const { alice, forms, ada, bob } = env;
      const formIds = [forms.apply, forms.news, forms.tea];
      const before = await env.exportOf("ada@example.com", { as: alice });
      assert.equal(before.lines.length, 3);
      const link = await env.call(
        "GET",
        `/api/restricted/form/${forms.apply}/submissionattachment/${env.file}`,
        { as: alice },
      );
      assert.equal(link.status, 200);
      const download = await env.service.fetch(new Request(link.body.id));
      assert.equal(download.status, 200);
      await download.arrayBuffer();

      const erased = await env.erase("ada@EXAMPLE.com", { as: alice });
      assert.equal(erased.status, 200, JSON.stringify(erased.body));
      assert.equal(erased.body.action_successful, true);
      assert.equal(erased.body.deleted, 3);
      assert.deepEqual(
        [...erased.body.forms].sort((a, b) => a.form_id.localeCompare(b.form_id)),
        formIds
          .map((form_id) => ({ form_id, deleted: 1 }))
          .sort((a, b) => a.form_id.localeCompare(b.form_id)),
      );

      // S1 and the history: gone; S5 and the per-form export: Bob's only.
      for (const [formId, id] of [
        [forms.apply, ada.apply],
        [forms.news, ada.news],
        [forms.tea, ada.tea],
      ] as const) {
        const path = submissionPath(formId, id);
        assert.equal((await env.call("GET", path, { as: alice })).status, 404);
        assert.equal((await env.call("GET", `${path}/history`, { as: alice })).status, 404);
        const listed = await env.call("GET", `/api/restricted/form/${formId}/submissions`, {
          as: alice,
        });
        assert.equal(listed.status, 200);
        assert.equal(
          listed.body.results.some((s: { id: string }) => s.id === id),
          false,
        );
        assert.doesNotMatch(JSON.stringify(listed.body), /ada@example\.com/i);
        const perForm = await env.service.fetch(
          new Request(
            `http://localhost/api/restricted/form/${formId}/submissions/export?format=ndjson`,
            {
              headers: { TokenId: alice.token_id, TokenSecret: alice.token_secret },
            },
          ),
        );
        assert.equal(perForm.status, 200);
        const rows = await perForm.text();
        assert.doesNotMatch(rows, /ada@example\.com/i);
        assert.equal(rows.includes(id), false);
      }
      const exported = await env.exportOf("ada@example.com", { as: alice });
      assert.deepEqual([exported.status, exported.text], [200, ""]);
      assert.equal((await env.exportOf("bob@example.com", { as: alice })).lines.length, 2);
      // The file: its record, its link and its bytes.
      const gone = await env.call(
        "GET",
        `/api/restricted/form/${forms.apply}/submissionattachment/${env.file}`,
        { as: alice },
      );
      assert.equal(gone.status, 404);
      assert.equal((await env.service.fetch(new Request(link.body.id))).status, 404);
      // Counts given back exactly: Bob's submissions are all that is counted.
      assert.deepEqual(await countsOf(env.store, formIds), [1, 0, 1]);

      // The webhook heard of the deletion, by id alone.
      await env.receiver.waitFor(3);
      const last = JSON.parse(env.receiver.received[2]?.body ?? "{}");
      assert.equal(last.type, "form_submission.deleted");
      assert.deepEqual(last.data.form_submission, { id: ada.apply });
      // No delivery, outbox entry, index record or anything else holds Ada's address.
      for (let tries = 0; tries < 100; tries++) {
        const pending = await recordsOf(env.store, "webhook_outbox");
        if (pending.length === 0) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      assert.deepEqual(await recordsOf(env.store, "webhook_outbox"), []);
      const deliveries = await recordsOf(env.store, "webhook_deliveries");
      const adaIds = new Set(Object.values(ada));
      for (const { record } of deliveries) {
        if (adaIds.has(record.submission_id as string)) {
          assert.equal(record.event_type, "form_submission.deleted");
        }
      }
      assert.ok(deliveries.some(({ record }) => record.submission_id === bob.tea));
      const text = await storeText(env.store);
      assert.doesNotMatch(text, /ada@example\.com/i);
      for (const id of adaIds) {
        const held = text.split("\n").filter((line) => line.includes(id));
        // The deleted event's delivery names the id alone.
        for (const line of held)
          assert.match(line, /^webhook_deliveries\/.*form_submission\.deleted/);
      }
      // Bob is untouched.
      assert.equal(
        (await env.call("GET", submissionPath(forms.apply, bob.apply), { as: alice })).status,
        200,
      );
      const again = await env.erase("ada@example.com", { as: alice });
      assert.deepEqual([again.body.deleted, again.body.forms], [0, []]);
      await env.service.close();
    });
  }

  it("touches no form the caller neither owns nor manages", async () => {
    const env = await threeForms(async () => createMemoryStore());
    const { alice, forms, ada } = env;
    const grant = async (email: string, flag: string): Promise<TestUser> => {
      const path = `/api/restricted/form/${forms.apply}/usersecurity?collaborator_email=${email}&${flag}=1`;
      assert.equal((await env.call("POST", path, { as: alice })).status, 200);
      return env.user(email);
    };
    const reporter = await grant("rita@example.com", "has_reporting_full");
    const stranger = await env.user("sam@example.com");
    for (const caller of [reporter, stranger]) {
      const erased = await env.erase("ada@example.com", { as: caller });
      assert.equal(erased.status, 200);
      assert.deepEqual([erased.body.deleted, erased.body.forms], [0, []]);
      assert.equal((await env.exportOf("ada@example.com", { as: caller })).text, "");
    }
    assert.equal(
      (await env.call("GET", submissionPath(forms.apply, ada.apply), { as: alice })).status,
      200,
    );
    // A manager of the form erases there, and only there.
    const manager = await grant("max@example.com", "has_account_management");
    const exported = await env.exportOf("ada@example.com", { as: manager });
    assert.deepEqual(
      exported.lines.map((line) => line.form_id),
      [forms.apply],
    );
    const erased = await env.erase("ada@example.com", { as: manager });
    assert.deepEqual(erased.body.forms, [{ form_id: forms.apply, deleted: 1 }]);
    assert.equal((await env.exportOf("ada@example.com", { as: alice })).lines.length, 2);
  });

  it("refuses what is no e-mail address, and a caller without credentials", async () => {
    const env = await respondentWorld(createMemoryStore());
    const alice = await env.user("alice@example.com");
    for (const email of ["", "ada", 12, null, "a@b@c"]) {
      const answer = await env.erase(email, { as: alice });
      assert.equal(answer.status, 400, JSON.stringify(email));
      assert.equal(answer.body.action_successful, false);
    }
    const extra = await env.call("POST", "/api/restricted/respondents/erase", {
      as: alice,
      body: { email: "ada@example.com", also: 1 },
    });
    assert.equal(extra.status, 400);
    assert.equal((await env.exportOf("not an address", { as: alice })).status, 400);
    const missing = await env.call("GET", "/api/restricted/respondents/export", { as: alice });
    assert.equal(missing.status, 400);
    assert.equal((await env.erase("ada@example.com")).status, 401);
    assert.equal((await env.exportOf("ada@example.com")).status, 401);
  });

  it("erases for a partner's customer, giving back the storage quota", async () => {
    const env = await respondentWorld(createMemoryStore());
    const partner = await env.service.admin.createPartner({ name: "Acme" });
    const headers = { PartnerId: partner.partner_id, PartnerSecret: partner.partner_secret };
    const added = await env.call("POST", "/api/restricted/partner/user", {
      headers,
      body: {
        email: "carla@example.com",
        first_name: "Carla",
        last_name: "Customer",
        subscription_status: "paying_customer",
        monthly_form_submissions_quota: 100,
        total_forms_quota: 10,
        total_datalists_quota: 10,
        total_file_storage_quota: 100_000,
        total_datalist_entries_per_datalist_quota: 10,
        total_admin_collaborators_quota: 10,
      },
    });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const login = await env.call("POST", "/api/restricted/partner/userauth", {
      headers: { ...headers, PartnerCustomerEmail: "carla@example.com" },
    });
    const asCarla = { Authorization: `Bearer ${login.body.message}` };
    const query = `?partnerAccountId=${partner.partner_id}`;
    const created = await env.call("POST", `/api/restricted/form${query}`, {
      headers: asCarla,
      body: {
        form_configuration: { settings: { form_name: "Jobs", form_type: "classicsingle" } },
        form_definition: { pages: [{ title: "1", fields: applicationFields }] },
      },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const formId = created.body.id as string;
    const file = await env.upload(formId, "cv_3");
    await env.submit(formId, { name_1: "Ada", email_2: "ada@example.com", cv_3: file });
    const storage = () =>
      env.store.get<{ id: string; counts: Record<string, number> }>(
        "customer_counters",
        added.body.id,
        "total_file_storage",
      );
    assert.ok(((await storage())?.record.counts.used ?? 0) > 0);
    const erased = await env.call("POST", `/api/restricted/respondents/erase${query}`, {
      headers: asCarla,
      body: { email: "ADA@example.com" },
    });
    assert.equal(erased.status, 200, JSON.stringify(erased.body));
    assert.deepEqual(erased.body.forms, [{ form_id: formId, deleted: 1 }]);
    assert.equal((await storage())?.record.counts.used, 0);
    assert.deepEqual(await countsOf(env.store, [formId]), [0]);
  });

  it("follows an S6 that changes the address: the old one finds nothing", async () => {
    const env = await respondentWorld(createMemoryStore());
    const alice = await env.user("alice@example.com");
    const formId = await env.newForm(alice, "Newsletter", newsletterFields);
    const id = await env.submit(formId, { contact_1: "ada@example.com", name_2: "Ada" });
    const edited = await env.call("POST", submissionPath(formId, id), {
      as: alice,
      body: {
        form_fields: [{ unique_system_name: "contact_1", submitted_value: "Ada.L@example.com" }],
      },
    });
    assert.equal(edited.status, 200);
    assert.equal((await env.exportOf("ada@example.com", { as: alice })).text, "");
    const moved = await env.exportOf("ada.l@example.com", { as: alice });
    assert.deepEqual(
      moved.lines.map((line) => line.form_submission.id),
      [id],
    );
    assert.equal((await env.erase("ada@example.com", { as: alice })).body.deleted, 0);
    // Cleared: no address, no index record.
    await env.call("POST", submissionPath(formId, id), {
      as: alice,
      body: { form_fields: [{ unique_system_name: "contact_1", submitted_value: "" }] },
    });
    assert.equal((await env.exportOf("ada.l@example.com", { as: alice })).text, "");
    assert.deepEqual(await recordsOf(env.store, "respondent_index"), []);
  });

  it("keeps no index of a deleted form", async () => {
    const env = await respondentWorld(createMemoryStore());
    const alice = await env.user("alice@example.com");
    const formId = await env.newForm(alice, "Newsletter", newsletterFields);
    await env.submit(formId, { contact_1: "ada@example.com", name_2: "Ada" });
    assert.equal((await recordsOf(env.store, "respondent_index")).length, 1);
    const index = (await recordsOf(env.store, "respondent_index"))[0]?.record ?? {};
    assert.deepEqual(Object.keys(index).sort(), ["id", "key", "submission_id"]);
    assert.doesNotMatch(JSON.stringify(index), /ada/);
    const path = `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=generalsettingsdelete`;
    const deleted = await env.call("POST", path, { as: alice });
    assert.equal(deleted.status, 200);
    assert.deepEqual(await recordsOf(env.store, "respondent_index"), []);
  });
});

describe("access export by respondent", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`streams each submission as S1 shows it, with signed links to its files (${name})`, async () => {
      const env = await threeForms(open);
      const { alice, forms, ada } = env;
      const exported = await env.exportOf("ADA@example.com", { as: alice });
      assert.equal(exported.status, 200);
      assert.equal(exported.type, "application/x-ndjson; charset=utf-8");
      const byForm = new Map(exported.lines.map((line) => [line.form_id, line]));
      assert.deepEqual([...byForm.keys()].sort(), [forms.apply, forms.news, forms.tea].sort());
      const line = byForm.get(forms.apply);
      assert.equal(line.form_name, "Applications");
      const s1 = await env.call("GET", submissionPath(forms.apply, ada.apply), { as: alice });
      assert.deepEqual(line.form_submission, s1.body.form_submission);
      assert.deepEqual(
        line.attachment_details.map((d: { attachment: unknown }) => d.attachment),
        s1.body.attachment_details.map((d: { attachment: unknown }) => d.attachment),
      );
      assert.match(line.attachment_details[0].attachment_sas_uri, /^\?sv=/);
      const download = await env.service.fetch(
        new Request(line.attachment_details[0].attachment_url),
      );
      assert.equal(download.status, 200);
      assert.equal(await download.text(), "a file of the respondent's");
      assert.equal(byForm.get(forms.tea).form_submission.id, ada.tea);
      assert.deepEqual(Object.keys(byForm.get(forms.news)).sort(), [
        "attachment_details",
        "form_id",
        "form_name",
        "form_submission",
      ]);
      assert.equal((await env.exportOf("nobody@example.com", { as: alice })).text, "");
      await env.service.close();
    });
  }
});

describe("an erasure cut short", () => {
  it("is taken up by the sweep once its lease ran out, and leaves nothing of the respondent", async () => {
    const inner = createMemoryStore({ freezeWrites: true });
    let deletions = 0;
    // The process "dies" once the second submission's deletion batch has landed.
    const { store, arm } = crashingStore(inner, (name, args) => {
      if (name !== "batch") return false;
      const ops = args[0] as { op: string; collection: string }[];
      return (
        ops.some((op) => op.op === "delete" && op.collection === "submissions") && ++deletions === 2
      );
    });
    const env = await respondentWorld(store);
    const alice = await env.user("alice@example.com");
    const formId = await env.newForm(alice, "Newsletter", newsletterFields);
    for (let n = 0; n < 5; n++)
      await env.submit(formId, { contact_1: "ada@example.com", name_2: `Ada ${n}` });
    const bob = await env.submit(formId, { contact_1: "bob@example.com", name_2: "Bob" });
    arm();
    const cut = await env.erase("ada@example.com", { as: alice });
    assert.equal(cut.status, 500);

    // Another instance over the same records, after the crash.
    const after = await respondentWorld(inner);
    const jobsOf = async () =>
      (await recordsOf(inner, "service_state")).filter(({ partition }) => partition === "erasures");
    const jobs = await jobsOf();
    assert.equal(jobs.length, 1);
    assert.doesNotMatch(JSON.stringify(jobs), /ada/i);
    // Within its lease the job is its writer's: the sweep leaves it.
    await after.service.sweepAttachments();
    assert.equal((await jobsOf()).length, 1);
    after.clock.now = new Date(after.clock.now.getTime() + 31_000);
    await after.service.sweepAttachments();
    assert.deepEqual(await jobsOf(), []);
    const listed = await after.call("GET", `/api/restricted/form/${formId}/submissions`, {
      as: alice,
    });
    assert.deepEqual(
      listed.body.results.map((s: { id: string }) => s.id),
      [bob],
    );
    assert.deepEqual(await countsOf(inner, [formId]), [1]);
    assert.equal((await recordsOf(inner, "respondent_index")).length, 1);
    assert.doesNotMatch(await storeText(inner), /ada@example\.com/i);
  });
});

describe("deliveries of a deleted submission", () => {
  it("are deleted under a worker that holds one, which writes nothing and fails nothing", async () => {
    const receiver = await startReceiver([{ status: 200, delayMs: 300 }]);
    const errors: unknown[] = [];
    const env = await respondentWorld(createMemoryStore({ freezeWrites: true }), {
      onError: (error) => errors.push(error),
    });
    const alice = await env.user("alice@example.com");
    const formId = await env.newForm(alice, "Newsletter", newsletterFields);
    const hook = await env.call("POST", `/api/restricted/form/${formId}/submissionwebhook`, {
      as: alice,
      body: { webhook_name: "created", webhook_url: receiver.url },
    });
    const id = await env.submit(formId, { contact_1: "ada@example.com", name_2: "Ada" });
    // The worker holds the entry while the receiver takes its time to answer.
    await receiver.waitFor(1);
    const deleted = await env.call("DELETE", submissionPath(formId, id), { as: alice });
    assert.equal(deleted.body.form_submission_item_deleted, true);
    assert.deepEqual(await recordsOf(env.store, "webhook_deliveries"), []);
    await new Promise((resolve) => setTimeout(resolve, 600));
    assert.deepEqual(await recordsOf(env.store, "webhook_deliveries"), []);
    assert.deepEqual(await recordsOf(env.store, "webhook_outbox"), []);
    const log = await env.call(
      "GET",
      `/api/restricted/form/${formId}/submissionwebhook/${hook.body.id}/deliveries`,
      { as: alice },
    );
    assert.deepEqual(log.body.results, []);
    assert.deepEqual(errors, []);
    assert.equal(receiver.received.length, 1);
  });

  it("left pending by a crash after the deletion are ended by the worker unsent", async () => {
    const receiver = await startReceiver([200]);
    const inner = createMemoryStore({ freezeWrites: true });
    // The process "dies" once S7's batch has landed, before its purge.
    const { store, arm } = crashingStore(inner, (name, args) => {
      const ops = args[0] as { op: string; collection: string }[];
      return (
        name === "batch" && ops.some((op) => op.op === "delete" && op.collection === "submissions")
      );
    });
    const first = await respondentWorld(store, { webhookPollMs: 0 });
    const alice = await first.user("alice@example.com");
    const formId = await first.newForm(alice, "Newsletter", newsletterFields);
    const hook = await first.call("POST", `/api/restricted/form/${formId}/submissionwebhook`, {
      as: alice,
      body: { webhook_name: "created", webhook_url: receiver.url },
    });
    assert.equal(hook.status, 200);
    const id = await first.submit(formId, { contact_1: "ada@example.com", name_2: "Ada" });
    arm();
    assert.equal(
      (await first.call("DELETE", submissionPath(formId, id), { as: alice })).status,
      500,
    );
    assert.equal((await recordsOf(inner, "webhook_deliveries")).length, 1);
    // Another instance's worker takes the entry up and ends it without sending it.
    const second = await respondentWorld(inner);
    for (let tries = 0; tries < 100; tries++) {
      if ((await recordsOf(inner, "webhook_outbox")).length === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.deepEqual(await recordsOf(inner, "webhook_outbox"), []);
    assert.deepEqual(await recordsOf(inner, "webhook_deliveries"), []);
    assert.equal(receiver.received.length, 0);
    await second.service.close();
  });
});
