import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formInput, setup } from "./helpers.ts";

async function withForm() {
  const env = await setup();
  const alice = await env.user("alice@example.com");
  const created = await env.call("POST", "/api/restricted/form", { as: alice, body: formInput() });
  const base = `/api/restricted/form/${created.body.id}/usersecurity`;
  return { ...env, alice, formId: created.body.id as string, base };
}

const allFlags = (value: 0 | 1) =>
  [
    "has_form_submission",
    "has_reporting_full",
    "has_form_editor",
    "has_account_management",
    "has_offline_form_submission",
  ]
    .map((flag) => `${flag}=${value}`)
    .join("&");

describe("form users", () => {
  it("U2 adds a collaborator by e-mail and U1 lists them with the form's basics", async () => {
    const { call, alice, formId, base } = await withForm();
    const added = await call(
      "POST",
      `${base}?collaborator_email=Bob@Example.com&has_reporting_full=1&has_form_editor=0`,
      {
        as: alice,
      },
    );
    assert.equal(added.status, 200);
    assert.equal(added.body.message, "Form collaborator added successfully");
    assert.equal(added.body.action_successful, true);
    const { status, body } = await call("GET", base, { as: alice });
    assert.equal(status, 200);
    assert.deepEqual(Object.keys(body).sort(), [
      "form_document_basic",
      "granted_form_roles",
      "results",
    ]);
    assert.equal(body.results.length, 2);
    const [owner, bob] = body.results;
    assert.equal(owner.granted_to_user_id, alice.user_id);
    assert.equal(owner.granted_to_email_address, undefined);
    assert.deepEqual(bob, {
      form_id: formId,
      granted_to_email_address: "bob@example.com",
      granted_by_user_id: alice.user_id,
      has_account_management: false,
      has_form_editor: false,
      has_form_submission: false,
      has_offline_form_submission: false,
      has_reporting_full: true,
      id: added.body.id,
      created_date_utc: bob.created_date_utc,
      modified_date_utc: "0001-01-01T00:00:00",
    });
    assert.deepEqual(body.form_document_basic.form_configuration.settings, {
      form_name: "Contact us",
      form_type: "classicsingle",
      form_system_version: 1,
    });
    assert.equal(body.form_document_basic.id, formId);
    assert.equal(body.granted_form_roles.length, 5);
  });

  it("grants to the account that later gets the e-mail", async () => {
    const { call, alice, user, formId, base } = await withForm();
    await call("POST", `${base}?collaborator_email=later@example.com&has_reporting_full=1`, {
      as: alice,
    });
    const later = await user("Later@Example.com");
    const { body } = await call("GET", "/api/restricted/user/form", { as: later });
    assert.deepEqual(
      body.results.map((f: { id: string }) => f.id),
      [formId],
    );
    assert.deepEqual(body.accessible_form_ids_full_reporting_access, [formId]);
    assert.deepEqual(body.accessible_form_ids_edit_access, []);
  });

  it("U3 changes the flags given, U4 removes the collaborator and their access", async () => {
    const { call, alice, user, formId, base } = await withForm();
    const added = await call(
      "POST",
      `${base}?collaborator_email=bob@example.com&has_account_management=1`,
      { as: alice },
    );
    const bob = await user("bob@example.com");
    assert.equal(
      (await call("GET", base, { as: bob })).body.granted_form_roles[0],
      "has_account_management",
    );
    const updated = await call(
      "POST",
      `${base}/${added.body.id}?has_reporting_full=1&has_form_editor=1`,
      { as: alice },
    );
    assert.equal(updated.status, 200);
    assert.equal(updated.body.message, "Form collaborator updated successfully");
    const listed = (await call("GET", base, { as: bob })).body;
    assert.deepEqual(listed.granted_form_roles, [
      "has_account_management",
      "has_form_editor",
      "has_reporting_full",
    ]);
    assert.notEqual(listed.results[1].modified_date_utc, "0001-01-01T00:00:00");
    const removed = await call("DELETE", `${base}/${added.body.id}`, { as: alice });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.message, "Form collaborator removed successfully");
    assert.equal((await call("GET", base, { as: bob })).status, 404);
    assert.deepEqual(
      (await call("GET", "/api/restricted/user/form", { as: bob })).body.results,
      [],
    );
    assert.equal((await call("DELETE", `${base}/${added.body.id}`, { as: alice })).status, 404);
    assert.equal((await call("GET", `/api/form/${formId}`, { as: bob })).status, 200);
  });

  it("lets an account manager manage users, and refuses everyone else", async () => {
    const { call, alice, user, base } = await withForm();
    await call("POST", `${base}?collaborator_email=boss@example.com&has_account_management=1`, {
      as: alice,
    });
    await call(
      "POST",
      `${base}?collaborator_email=ed@example.com&${allFlags(1).replace("has_account_management=1", "has_account_management=0")}`,
      {
        as: alice,
      },
    );
    const boss = await user("boss@example.com");
    const editor = await user("ed@example.com");
    const stranger = await user("who@example.com");
    const added = await call(
      "POST",
      `${base}?collaborator_email=new@example.com&has_form_submission=1`,
      { as: boss },
    );
    assert.equal(added.status, 200);
    for (const [method, path] of [
      ["GET", base],
      ["POST", `${base}?collaborator_email=x@example.com`],
      ["POST", `${base}/${added.body.id}?has_form_editor=1`],
      ["DELETE", `${base}/${added.body.id}`],
    ] as const) {
      const denied = await call(method, path, { as: editor });
      assert.equal(denied.status, 403, `${method} ${path}`);
      assert.equal(denied.body.error, "forbidden");
      assert.equal((await call(method, path, { as: stranger })).status, 404, `${method} ${path}`);
      assert.equal((await call(method, path)).status, 401, `${method} ${path}`);
    }
  });

  it("refuses to change or remove the owner's record", async () => {
    const { call, alice, base } = await withForm();
    const [owner] = (await call("GET", base, { as: alice })).body.results;
    assert.equal(
      (await call("POST", `${base}/${owner.id}?has_form_editor=0`, { as: alice })).status,
      403,
    );
    assert.equal((await call("DELETE", `${base}/${owner.id}`, { as: alice })).status, 403);
  });

  it("answers 409 for a second grant to one address, even when sent concurrently", async () => {
    const { call, alice, base } = await withForm();
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        call("POST", `${base}?collaborator_email=bob@example.com&has_reporting_full=1`, {
          as: alice,
        }),
      ),
    );
    assert.deepEqual(answers.map((a) => a.status).sort(), [200, 409, 409, 409, 409, 409, 409, 409]);
    assert.equal(answers.find((a) => a.status === 409)?.body.error, "conflict");
    assert.equal((await call("GET", base, { as: alice })).body.results.length, 2);
  });

  it("refuses bad e-mails, bad flags and bad ids with 400 and changes nothing", async () => {
    const { call, alice, base } = await withForm();
    const cases: [string, string][] = [
      [`${base}`, "collaborator_email"],
      [`${base}?collaborator_email=not-an-email`, "collaborator_email"],
      [`${base}?collaborator_email=b@example.com&has_form_editor=yes`, "has_form_editor"],
      [`${base}?collaborator_email=b@example.com&has_reporting_full=2`, "has_reporting_full"],
      [`${base}/not-a-guid?has_form_editor=1`, "userSecurityId"],
      [base.replace(/form\/[^/]+/, "form/xyz"), "formId"],
    ];
    for (const [path, at] of cases) {
      const { status, body } = await call("POST", path, { as: alice });
      assert.equal(status, 400, path);
      assert.equal(body.issues[0].path, at, path);
    }
    assert.equal((await call("GET", base, { as: alice })).body.results.length, 1);
    assert.equal(
      (
        await call("POST", `${base}/01234567-89ab-7def-8123-456789abcdef?has_form_editor=1`, {
          as: alice,
        })
      ).status,
      404,
    );
  });
});
