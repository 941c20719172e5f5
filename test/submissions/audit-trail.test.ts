/**
 * The audit trail (docs/design.md §25): an entry for each read and change of submissions and
 * of who may see them, with who, from where and which request; listed newest first for the
 * form's account managers; kept past the form's deletion and swept after its retention.
 */
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createMemoryBlobStore } from "../../adapters/memory/index.ts";
import { createFormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { queryAll } from "../../src/ports/query-all.ts";
import { formInput, request, type TestUser } from "../helpers.ts";
import { customerBody, withPartner } from "../partners/setup.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: false },
  { unique_system_name: "cv_2", type: "file", label: "CV", required: false, max_files: 1 },
];

const address = "203.0.113.7";
let requests = 0;

/** A service on `store` with a clock the test moves, alice's form, and calls that say where from. */
async function world(store: Store) {
  const clock = { now: new Date("2026-01-10T10:00:00.000Z") };
  const now = () => clock.now;
  const service = createFormService({
    store: serviceQueriesOnly(store),
    blobs: createMemoryBlobStore({ now }),
    now,
    sweepIntervalMs: 0,
    webhookPollMs: 0,
    trustProxy: true,
    allowPrivateWebhookDestinations: true,
  });
  after(() => service.close().catch(() => {}));
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  /** One call as `as`, one second after the last, with its own request id; answers it too. */
  const call = async (method: string, path: string, as?: TestUser, body?: unknown) => {
    clock.now = new Date(clock.now.getTime() + 1000);
    const requestId = `audit-test-${++requests}`;
    const headers = { "X-Forwarded-For": address, "X-Request-Id": requestId };
    const answer = await request(service, method, path, { as, body, headers });
    return { ...answer, requestId };
  };
  const created = await call("POST", "/api/restricted/form", alice, formInput("Jobs", fields));
  const formId: string = created.body.id;
  const base = `/api/restricted/form/${formId}`;
  const entries = async (as: TestUser = alice, query = "") => {
    const page = await request(service, "GET", `${base}/audit${query}`, { as });
    assert.equal(page.status, 200, JSON.stringify(page.body));
    return page.body;
  };
  return { service, store, clock, alice, formId, base, call, entries };
}

type World = Awaited<ReturnType<typeof world>>;

/** S3 then S2 with that file, anonymously: the two calls that write no entry. */
async function anonymousPost(env: World) {
  const body = new FormData();
  body.append("cv_2", new Blob(["my cv"], { type: "text/plain" }), "cv.txt");
  const uploaded = await env.service.fetch(
    new Request(`http://localhost/api/form/${env.formId}/submissionattachment`, {
      method: "POST",
      body,
    }),
  );
  const attachmentId: string = ((await uploaded.json()) as { id: string }).id;
  const posted = await env.call("POST", `/api/form/${env.formId}/submission`, undefined, {
    form_fields: [
      { unique_system_name: "name_1", submitted_value: "Ada" },
      { unique_system_name: "cv_2", submitted_value: attachmentId },
    ],
  });
  assert.equal(posted.status, 200, JSON.stringify(posted.body));
  return { submissionId: posted.body.id as string, attachmentId };
}

describe("audit trail", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`records each read and change with who, what, from where and which request (${name})`, async () => {
      const env = await world(await open());
      const { base, alice, call } = env;
      const { submissionId, attachmentId } = await anonymousPost(env);
      // S2 and S3 are anonymous: they write none.
      assert.deepEqual((await env.entries()).entries, []);

      const expected: { action: string; targets: string[]; requestId: string; count?: number }[] =
        [];
      const expect = (
        answer: { status: number; requestId: string; body: unknown },
        action: string,
        targets: string[],
        count?: number,
      ) => {
        assert.equal(answer.status, 200, `${action}: ${JSON.stringify(answer.body)}`);
        expected.push({ action, targets, requestId: answer.requestId, count });
      };
      const submission = `${base}/submission/${submissionId}`;
      expect(await call("GET", submission, alice), "submission_read", [submissionId]);
      expect(
        await call("GET", `${base}/submissionattachment/${attachmentId}`, alice),
        "attachment_link_issued",
        [attachmentId],
      );
      expect(
        await call("GET", `${base}/submissions`, alice),
        "submissions_listed",
        [submissionId],
        1,
      );
      const exported = await exportAs(env, alice);
      expected.push({ action: "submissions_exported", targets: [], requestId: exported });
      const edit = { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada L." }] };
      expect(await call("POST", submission, alice, edit), "submission_updated", [submissionId]);
      const grant = `${base}/usersecurity?collaborator_email=Bob@Example.com&has_reporting_full=1`;
      const granted = await call("POST", grant, alice);
      const grantId: string = granted.body.id;
      expect(granted, "collaborator_added", [grantId, "bob@example.com"]);
      expect(
        await call("POST", `${base}/usersecurity/${grantId}?has_form_editor=1`, alice),
        "collaborator_changed",
        [grantId, "bob@example.com"],
      );
      const hook = { webhook_name: "Hook", webhook_destination_url: "http://127.0.0.1:9/hook" };
      const added = await call("POST", `${base}/submissionwebhook`, alice, hook);
      const webhookId: string = added.body.id;
      expect(added, "webhook_added", [webhookId]);
      expect(
        await call("DELETE", `${base}/submissionwebhook/${webhookId}`, alice),
        "webhook_removed",
        [webhookId],
      );
      const section = (name: string) => `${base}/?updateSettingsOnly=1&settingsSection=${name}`;
      expect(
        await call("POST", section("destinationsettings"), alice, { enabled: false }),
        "destination_settings_changed",
        [],
      );
      expect(
        await call("POST", section("confirmationemailsettings"), alice, { enabled: false }),
        "email_settings_changed",
        [],
      );
      // The checkout hands the payment provider the respondent's e-mail address.
      expect(
        await call("POST", section("paymentsettings"), alice, { enabled: false }),
        "payment_settings_changed",
        [],
      );
      // Other sections are not who sees the submissions: no entry.
      const thanks = { thanks_behaviour: "inline_message" };
      assert.equal((await call("POST", section("thankspagesettings"), alice, thanks)).status, 200);
      expect(
        await call("DELETE", `${base}/usersecurity/${grantId}`, alice),
        "collaborator_removed",
        [grantId, "bob@example.com"],
      );
      expect(await call("DELETE", submission, alice), "submission_deleted", [submissionId]);

      const { entries, continuation_token } = await env.entries();
      assert.equal(continuation_token, null);
      const seen = entries.map((entry: Record<string, unknown>) => ({
        action: entry.action,
        targets: entry.target_ids,
        requestId: entry.request_id,
        ...(entry.count === undefined ? {} : { count: entry.count }),
      }));
      const wanted = expected
        .map(({ count, ...rest }) => ({ ...rest, ...(count === undefined ? {} : { count }) }))
        .reverse();
      assert.deepEqual(seen, wanted);
      for (const entry of entries) {
        assert.equal(entry.actor, alice.user_id);
        assert.equal(entry.client_address, address);
        assert.equal(entry.form_id, env.formId);
        assert.equal(entry.on_behalf_of, undefined);
        const kept = Date.parse(entry.expires_at) - Date.parse(entry.at);
        assert.equal(kept, 400 * 24 * 60 * 60 * 1000);
      }
      // Nothing the respondent typed reaches the trail.
      assert.doesNotMatch(JSON.stringify(entries), /Ada|my cv|cv\.txt/);
    });

    it(`pages newest first with a cursor, for account managers only (${name})`, async () => {
      const env = await world(await open());
      const { base, alice, call } = env;
      const { submissionId } = await anonymousPost(env);
      for (let n = 0; n < 7; n++) await call("GET", `${base}/submission/${submissionId}`, alice);
      const whole = (await env.entries()).entries;
      assert.equal(whole.length, 7);
      const times = whole.map((entry: { at: string }) => entry.at);
      assert.deepEqual(times, [...times].sort().reverse());
      const paged = [];
      let cursor: string | null = null;
      do {
        const query: string = `?batchSize=3${cursor ? `&continuationToken=${encodeURIComponent(cursor)}` : ""}`;
        const page = await env.entries(alice, query);
        assert.ok(page.entries.length <= 3);
        paged.push(...page.entries);
        cursor = page.continuation_token;
      } while (cursor);
      assert.deepEqual(paged, whole);

      const bad = await request(env.service, "GET", `${base}/audit?batchSize=1001`, { as: alice });
      assert.equal(bad.status, 400);
      // A reporter, who reads submissions, may not read who else did (403); a stranger sees no form.
      const bob = (await env.service.admin.createAccount({ email: "bob@example.com" })) as TestUser;
      const grant = `${base}/usersecurity?collaborator_email=bob@example.com&has_reporting_full=1`;
      assert.equal((await call("POST", grant, alice)).status, 200);
      assert.equal((await request(env.service, "GET", `${base}/audit`, { as: bob })).status, 403);
      const eve = (await env.service.admin.createAccount({ email: "eve@example.com" })) as TestUser;
      assert.equal((await request(env.service, "GET", `${base}/audit`, { as: eve })).status, 404);
      // Granted account management, bob reads it.
      const manager = `${base}/usersecurity?collaborator_email=carol@example.com&has_account_management=1`;
      assert.equal((await call("POST", manager, alice)).status, 200);
      const carol = (await env.service.admin.createAccount({
        email: "carol@example.com",
      })) as TestUser;
      assert.equal((await env.entries(carol)).entries.length, 9);
    });

    it(`keeps a deleted form's entries, and sweeps them after their retention (${name})`, async () => {
      const env = await world(await open());
      const { base, alice, call, store, clock } = env;
      const { submissionId } = await anonymousPost(env);
      await call("GET", `${base}/submission/${submissionId}`, alice);
      const firstMonth = clock.now.toISOString().slice(0, 7);
      // A month later, another read; then the form goes (F3).
      clock.now = new Date("2026-02-20T10:00:00.000Z");
      await call("GET", `${base}/submission/${submissionId}`, alice);
      const deleted = await call(
        "POST",
        `${base}/?updateSettingsOnly=1&settingsSection=generalsettingsdelete`,
        alice,
      );
      assert.equal(deleted.status, 200);
      assert.equal((await request(env.service, "GET", `${base}/audit`, { as: alice })).status, 404);
      // F3 leaves the trail, which records who deleted the form, in F3's own batch.
      const kept = await queryAll<Record<string, unknown> & { id: string }>(
        store,
        "audit_entries",
        env.formId,
      );
      assert.deepEqual(
        kept.map((entry) => entry.action),
        ["submission_read", "submission_read", "form_deleted"],
      );
      const gone = kept[2];
      assert.deepEqual(
        [gone?.actor, gone?.target_ids, gone?.request_id],
        [alice.user_id, [env.formId], deleted.requestId],
      );

      // 400 days after the first read, and a day for the sweep's whole days: the first goes.
      clock.now = new Date("2027-02-15T10:00:00.000Z");
      await env.service.sweepAttachments();
      const left = await queryAll<{ id: string; at: string }>(store, "audit_entries", env.formId);
      assert.deepEqual(
        left.map((entry) => entry.at.slice(0, 10)),
        ["2026-02-20", "2026-02-20"],
      );
      // A sweep again the same day finds nothing more to do.
      await env.service.sweepAttachments();
      assert.equal((await queryAll(store, "audit_entries", env.formId)).length, 2);
      clock.now = new Date("2027-03-28T10:00:00.000Z");
      await env.service.sweepAttachments();
      assert.deepEqual(await queryAll(store, "audit_entries", env.formId), []);
      // The month wholly past the cutoff leaves the registry; the one it falls in stays.
      assert.deepEqual(await queryAll(store, "audit_months", firstMonth), []);
      assert.equal((await queryAll(store, "audit_months", "2026-02")).length, 1);
    });
  }

  it("names a partner acting as its customer through a login token", async () => {
    const env = await withPartner({ trustProxy: true });
    const customerId = await env.addCustomer(customerBody("carla@example.com"));
    const jwt = await env.login("carla@example.com");
    const created = await env.asCustomer(jwt, "POST", "/api/restricted/form", {
      body: formInput("Jobs", fields),
    });
    const base = `/api/restricted/form/${created.body.id}`;
    const headers = { "X-Forwarded-For": address, "X-Request-Id": "partner-list" };
    assert.equal(
      (await env.asCustomer(jwt, "GET", `${base}/submissions`, { headers })).status,
      200,
    );
    const { body } = await env.asCustomer(jwt, "GET", `${base}/audit`);
    assert.equal(body.entries.length, 1);
    const [entry] = body.entries;
    assert.equal(entry.actor, `partner:${env.partner.partner_id}`);
    assert.equal(entry.on_behalf_of, customerId);
    assert.equal(entry.action, "submissions_listed");
    assert.equal(entry.count, 0);
    assert.equal(entry.request_id, "partner-list");
    assert.equal(entry.client_address, address);
  });
});

/** The export as `as`, read whole; answers its request id. */
async function exportAs(env: World, as: TestUser): Promise<string> {
  env.clock.now = new Date(env.clock.now.getTime() + 1000);
  const requestId = `audit-test-${++requests}`;
  const response = await env.service.fetch(
    new Request(`http://localhost${env.base}/submissions/export?format=ndjson`, {
      headers: {
        TokenId: as.token_id,
        TokenSecret: as.token_secret,
        "X-Forwarded-For": address,
        "X-Request-Id": requestId,
      },
    }),
  );
  assert.equal(response.status, 200);
  await response.text();
  return requestId;
}
