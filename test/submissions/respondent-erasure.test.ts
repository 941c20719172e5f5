/**
 * Erasure and access by respondent (docs/design.md §6), on every store: the respondent index
 * finds a respondent's submissions across the caller's forms, case-insensitively; the erasure
 * leaves no trace of them (records, files, deliveries, outbox, history) and gives every count
 * back; only the forms the caller owns or manages are touched.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { TestUser } from "../helpers.ts";
import { storeKinds } from "../store-kinds.ts";
import {
  applicationFields,
  countsOf,
  newsletterFields,
  submissionPath,
  threeForms,
} from "./respondent-forms.ts";
import { recordsOf, respondentWorld, storeText } from "./respondent-setup.ts";

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
        // Only the deleted event's delivery and the audit trail name the id, and they name
        // nothing else of hers (the whole store holds no trace of her address, above).
        for (const line of held)
          assert.match(
            line,
            /^webhook_deliveries\/.*form_submission\.deleted|^audit_entries\/.*"action":"(respondent_erased|respondent_exported|submission_read|submissions_listed)"/,
          );
        const erased = held.filter((line) => line.includes('"respondent_erased"'));
        assert.equal(erased.length, 1, `one audit entry records the erasure of ${id}`);
        assert.ok(erased[0]?.includes(`"actor":"${alice.user_id}"`));
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
