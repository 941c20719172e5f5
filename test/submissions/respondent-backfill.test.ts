/**
 * The respondent index's backfill (docs/design.md §6), on every store: submissions stored
 * before the index existed (no `respondent_keys`, no index records) are keyed by a form's
 * first erasure or export, once, and found by both; later requests read the form's marker
 * and scan nothing; a submission changed or deleted during the backfill is indexed as it is.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { type BatchOp, type Store, StoreConflictError } from "../../src/ports/store.ts";
import { countingStore } from "../counting-store.ts";
import { settingsPath } from "../form-fixture.ts";
import type { TestUser } from "../helpers.ts";
import { storeKinds } from "../store-kinds.ts";
import { countsOf, newsletterFields, submissionPath, teaFields } from "./respondent-forms.ts";
import { recordsOf, respondentWorld } from "./respondent-setup.ts";

interface Submission {
  id: string;
  respondent_keys?: string[];
  form_fields: { unique_system_name: string; submitted_value: string }[];
}

/** Makes the store look as an older version left it: no keys, no index, no markers. */
async function age(store: Store, formIds: string[]) {
  for (const formId of formIds) {
    await store.deletePartition("respondent_index", formId);
    const page = await store.query<Submission>("submissions", formId, { limit: 100 });
    for (const { record, etag } of page.items) {
      const { respondent_keys: _, ...old } = record;
      await store.replace("submissions", formId, old, { ifMatch: etag });
    }
  }
  await store.deletePartition("service_state", "respondents-indexed");
}

/** Alice's two forms with an e-mail field and old submissions to them. */
async function oldForms(store: Store) {
  const calls: string[] = [];
  const env = await respondentWorld(countingStore(store, calls));
  const alice = await env.user("alice@example.com");
  const news = await env.newForm(alice, "Newsletter", newsletterFields);
  const tea = await env.newForm(alice, "Tea", teaFields);
  const ids = {
    ada: await env.submit(news, { contact_1: "Ada@Example.com", name_2: "Ada" }),
    adaDraft: await env.submit(news, { contact_1: "ada@example.com" }, true),
    bob: await env.submit(news, { contact_1: "bob@example.com", name_2: "Bob" }),
    none: await env.submit(news, { contact_1: "", name_2: "Nobody" }),
    adaTea: await env.submit(tea, { name_1: "Ada", to_2: "ADA@example.com" }),
  };
  await age(store, [news, tea]);
  return { ...env, calls, alice, news, tea, ids };
}

/** Every index record's id, `<key>.<submission id>`, of `formId`, sorted. */
async function indexOf(store: Store, formId: string) {
  const records = await recordsOf(store, "respondent_index");
  return records
    .filter(({ partition }) => partition === formId)
    .map(({ record }) => record.id as string)
    .sort();
}

describe("the respondent index's backfill", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`the first export keys old submissions once; later ones read a marker (${name})`, async () => {
      const store = await open();
      const env = await oldForms(store);
      const { alice, news, tea, ids, calls } = env;
      const none = await store.get("submissions", news, ids.none);
      const ada = await env.exportOf("ada@example.com", { as: alice });
      assert.deepEqual(
        ada.lines.map((line) => line.form_submission.id).sort(),
        [ids.ada, ids.adaDraft, ids.adaTea].sort(),
      );

      // It keyed the old submissions holding an address, one batch each, and left the one
      // without as it was.
      const keyed = await recordsOf(store, "submissions");
      const keysOf = (id: string) =>
        keyed.find(({ record }) => record.id === id)?.record.respondent_keys;
      for (const id of [ids.ada, ids.adaDraft, ids.bob, ids.adaTea]) assert.ok(keysOf(id));
      assert.equal(keysOf(ids.none), undefined);
      assert.equal((await store.get("submissions", news, ids.none))?.etag, none?.etag);
      assert.equal((await indexOf(store, news)).length, 3);
      const markers = await recordsOf(store, "service_state");
      assert.deepEqual(
        markers
          .filter(({ partition }) => partition === "respondents-indexed")
          .map(({ record }) => record.id)
          .sort(),
        [news, tea].sort(),
      );

      // Later requests read each form's marker, and scan nor write nothing more.
      calls.length = 0;
      const bob = await env.exportOf("bob@example.com", { as: alice });
      assert.deepEqual(
        bob.lines.map((line) => line.form_submission.id),
        [ids.bob],
      );
      assert.equal(calls.filter((call) => call === "get service_state").length, 2);
      assert.equal(calls.includes("query submissions"), false);
      assert.equal(calls.includes("batch"), false);

      // A second backfill (the marker lost) finds nothing to write.
      await store.delete("service_state", "respondents-indexed", news);
      calls.length = 0;
      assert.equal((await env.exportOf("bob@example.com", { as: alice })).lines.length, 1);
      assert.equal(calls.filter((call) => call === "query submissions").length, 1);
      assert.equal(calls.includes("batch"), false);
      assert.ok(await store.get("service_state", "respondents-indexed", news));

      // F3 deletes the form's marker with the form.
      const f3 = settingsPath(news, "generalsettingsdelete");
      const deleted = await env.call("POST", f3, { as: alice });
      assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
      assert.equal(await store.get("service_state", "respondents-indexed", news), null);
      assert.ok(await store.get("service_state", "respondents-indexed", tea));
      await env.service.close();
    });

    it(`the first erasure keys old submissions and deletes them exactly (${name})`, async () => {
      const store = await open();
      const env = await oldForms(store);
      const { alice, news, tea, ids } = env;
      assert.deepEqual(await countsOf(store, [news, tea]), [4, 1]);
      const erased = await env.erase("ada@example.com", { as: alice });
      assert.equal(erased.status, 200, JSON.stringify(erased.body));
      assert.equal(erased.body.deleted, 3);
      assert.deepEqual(
        [...erased.body.forms].sort((a, b) => a.form_id.localeCompare(b.form_id)),
        [
          { form_id: news, deleted: 2 },
          { form_id: tea, deleted: 1 },
        ].sort((a, b) => a.form_id.localeCompare(b.form_id)),
      );
      assert.deepEqual(await countsOf(store, [news, tea]), [2, 0]);
      for (const [formId, id] of [
        [news, ids.ada],
        [news, ids.adaDraft],
        [tea, ids.adaTea],
      ] as const) {
        const read = await env.call("GET", submissionPath(formId, id), { as: alice });
        assert.equal(read.status, 404);
      }
      for (const id of [ids.bob, ids.none]) {
        const read = await env.call("GET", submissionPath(news, id), { as: alice });
        assert.equal(read.status, 200);
      }
      assert.equal((await env.exportOf("ada@example.com", { as: alice })).text, "");
      assert.equal((await env.exportOf("bob@example.com", { as: alice })).lines.length, 1);
      await env.service.close();
    });

    it(`indexes a submission changed or deleted during the backfill as it is then (${name})`, async () => {
      const store = await open();
      let during: (() => Promise<void>) | null = null;
      const hooked = new Proxy(store, {
        get(target, property) {
          const value = Reflect.get(target, property, target);
          if (property !== "batch") return typeof value === "function" ? value.bind(target) : value;
          return async (ops: readonly BatchOp[]) => {
            const change = during;
            during = null;
            await change?.();
            return target.batch(ops);
          };
        },
      });
      const env = await respondentWorld(hooked);
      const alice: TestUser = await env.user("alice@example.com");
      const news = await env.newForm(alice, "Newsletter", newsletterFields);
      const byOld = await env.submit(news, { contact_1: "ada@example.com", name_2: "Ada" });
      const byEdit = await env.submit(news, { contact_1: "ada@example.com", name_2: "Ada" });
      const gone = await env.submit(news, { contact_1: "ada@example.com", name_2: "Ada" });
      await age(store, [news]);
      // Before the backfill's first batch: an older instance changes one (no keys), an S6
      // another, an S7 deletes the third.
      during = async () => {
        const old = await store.get<Submission>("submissions", news, byOld);
        assert.ok(old);
        const form_fields = old.record.form_fields.map((field) =>
          field.unique_system_name === "contact_1"
            ? { ...field, submitted_value: "carol@example.com" }
            : field,
        );
        await store.replace("submissions", news, { ...old.record, form_fields });
        const edited = await env.call("POST", submissionPath(news, byEdit), {
          as: alice,
          body: {
            form_fields: [{ unique_system_name: "contact_1", submitted_value: "dan@x.org" }],
          },
        });
        assert.equal(edited.status, 200, JSON.stringify(edited.body));
        const deleted = await env.call("DELETE", submissionPath(news, gone), { as: alice });
        assert.equal(deleted.status, 200);
      };
      assert.equal((await env.exportOf("ada@example.com", { as: alice })).text, "");
      assert.equal(during, null);
      const found = async (email: string) =>
        (await env.exportOf(email, { as: alice })).lines.map((line) => line.form_submission.id);
      assert.deepEqual(await found("carol@example.com"), [byOld]);
      assert.deepEqual(await found("dan@x.org"), [byEdit]);
      assert.equal((await indexOf(store, news)).length, 2);
      assert.equal(await store.get("submissions", news, gone), null);
      await env.service.close();
    });

    it(`keys a submission whose index records are there already (${name})`, async () => {
      const store = await open();
      const env = await respondentWorld(store);
      const alice = await env.user("alice@example.com");
      const news = await env.newForm(alice, "Newsletter", newsletterFields);
      const id = await env.submit(news, { contact_1: "ada@example.com", name_2: "Ada" });
      const stored = await store.get<Submission>("submissions", news, id);
      assert.ok(stored);
      const { respondent_keys: keys, ...old } = stored.record;
      await store.replace("submissions", news, old);
      const found = await env.exportOf("ada@example.com", { as: alice });
      assert.deepEqual(
        found.lines.map((line) => line.form_submission.id),
        [id],
      );
      const keyed = await store.get<Submission>("submissions", news, id);
      assert.deepEqual(keyed?.record.respondent_keys, keys);
      assert.equal((await indexOf(store, news)).length, 1);
      await env.service.close();
    });

    it(`backfills the forms of a job an older version left before the sweep erases (${name})`, async () => {
      const store = await open();
      const env = await oldForms(store);
      const { alice, news, tea, ids } = env;
      const key = createHash("sha256").update("ada@example.com").digest("hex");
      const past = new Date(env.clock.now.getTime() - 60_000).toISOString();
      const job = { id: "old-job", key, form_ids: [news, tea], lease_until: past };
      await store.create("service_state", "erasures", { ...job, created_date_utc: past });
      await env.service.sweepAttachments();
      assert.equal(await store.get("service_state", "erasures", "old-job"), null);
      assert.deepEqual(await countsOf(store, [news, tea]), [2, 0]);
      const left = await env.call("GET", `/api/restricted/form/${news}/submissions`, { as: alice });
      assert.deepEqual(
        left.body.results.map((s: { id: string }) => s.id).sort(),
        [ids.bob, ids.none].sort(),
      );
      await env.service.close();
    });

    it(`writes none of a batch's creates when its replace's etag is stale (${name})`, async () => {
      const store = await open();
      const next: Submission = { id: "s", form_fields: [] };
      const first = await store.create("submissions", "f", { id: "s", n: 1 });
      await store.replace("submissions", "f", { id: "s", n: 2 });
      await assert.rejects(
        store.batch([
          {
            op: "replace",
            collection: "submissions",
            partition: "f",
            record: next,
            ifMatch: first.etag,
            previous: first.record,
          },
          { op: "create", collection: "respondent_index", partition: "f", record: { id: "k.s" } },
        ]),
        (error) => error instanceof StoreConflictError && error.reason === "etag",
      );
      assert.equal(await store.get("respondent_index", "f", "k.s"), null);
      assert.deepEqual((await store.get("submissions", "f", "s"))?.record, { id: "s", n: 2 });
      await store.close();
    });
  }
});
