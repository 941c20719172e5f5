import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { grant, settingsPath, withForm } from "./form-fixture.ts";
import { formInput, setup, type TestUser } from "./helpers.ts";

describe("F4 list", () => {
  it("lists owned and granted forms with ids by role", async () => {
    const env = await withForm();
    const { call, alice, formId } = env;
    const collaborator = await grant(
      env,
      "bob@example.com",
      "has_form_editor=1&has_reporting_full=1",
    );
    const own = await call("POST", "/api/restricted/form", {
      as: collaborator,
      body: formInput("Bob's"),
    });
    const { body } = await call("GET", "/api/restricted/user/form", { as: collaborator });
    assert.deepEqual(
      body.results.map((f: { id: string }) => f.id).sort(),
      [formId, own.body.id].sort(),
    );
    assert.deepEqual(body.accessible_form_ids_edit_access.sort(), [formId, own.body.id].sort());
    assert.deepEqual(
      body.accessible_form_ids_full_reporting_access.sort(),
      [formId, own.body.id].sort(),
    );
    assert.deepEqual(body.accessible_form_ids_account_management_access, [own.body.id]);
    const summary = body.results.find((f: { id: string }) => f.id === formId);
    assert.deepEqual(Object.keys(summary).sort(), [
      "created_date_utc",
      "form_configuration",
      "id",
      "modified_date_utc",
    ]);
    const submitter = await grant(env, "sub@example.com", "has_form_submission=1");
    const listed = (await call("GET", "/api/restricted/user/form", { as: submitter })).body;
    assert.deepEqual(
      listed.results.map((f: { id: string }) => f.id),
      [formId],
    );
    assert.deepEqual(listed.accessible_form_ids_edit_access, []);
    assert.equal(
      (await call("GET", "/api/restricted/user/form", { as: alice })).body.results.length,
      1,
    );
  });
});

describe("F5 retrieve form JSON", () => {
  it("serves the definition to anyone, with ids in braces or upper case", async () => {
    const { call, formId } = await withForm();
    for (const id of [
      formId,
      formId.toUpperCase(),
      `{${formId}}`,
      `%7B${formId.toUpperCase()}%7D`,
    ]) {
      const { status, body } = await call("GET", `/api/form/${id}`);
      assert.equal(status, 200, id);
      assert.equal(body.form_definition.pages[0].fields[0].unique_system_name, "gpi_1");
    }
    const bad = await call("GET", "/api/form/12345");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.issues[0].path, "formId");
  });

  it("fills datalist-backed options and leaves private sections out", async () => {
    const { call, user } = await setup();
    const alice = await user("alice@example.com");
    const list = await call("POST", "/api/restricted/datalist", {
      as: alice,
      body: { settings: { list_name: "Cities" } },
    });
    await call("POST", `/api/restricted/datalist/${list.body.id}/entry`, {
      as: alice,
      body: [
        { entry_value: "Wellington", sort_order: 2 },
        { entry_value: "Auckland", sort_order: 1 },
      ],
    });
    const field = {
      unique_system_name: "gpi_5",
      type: "select",
      label: "City",
      datalist_id: list.body.id,
    };
    const form = await call("POST", "/api/restricted/form", {
      as: alice,
      body: formInput("F", [field]),
    });
    await call("POST", settingsPath(form.body.id, "destinationsettings"), {
      as: alice,
      body: { api_key: "k" },
    });
    const { body } = await call("GET", `/api/form/${form.body.id}`);
    assert.deepEqual(body.form_definition.pages[0].fields[0].options, ["Auckland", "Wellington"]);
    assert.ok(!JSON.stringify(body).includes("api_key"));
  });

  it("refuses a disabled form to the public but not to its owner", async () => {
    const { call, alice, formId } = await withForm();
    await call("POST", settingsPath(formId, "generalsettings"), {
      as: alice,
      body: { is_disabled: true },
    });
    const refused = await call("GET", `/api/form/${formId}`);
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error, "form_disabled");
    assert.equal((await call("GET", `/api/form/${formId}`, { as: alice })).status, 200);
  });

  it("asks for login when the form requires it, and admits submitters only", async () => {
    const env = await withForm();
    const { call, alice, formId } = env;
    await call("POST", settingsPath(formId, "securitysettings"), {
      as: alice,
      body: { requires_login: true },
    });
    const submitter: TestUser = await grant(env, "sub@example.com", "has_form_submission=1");
    const offline = await grant(env, "off@example.com", "has_offline_form_submission=1");
    const reporter = await grant(env, "rep@example.com", "has_reporting_full=1");
    const stranger = await env.user("who@example.com");
    assert.equal((await call("GET", `/api/form/${formId}`)).status, 401);
    assert.equal((await call("GET", `/api/form/${formId}`, { as: stranger })).status, 404);
    assert.equal((await call("GET", `/api/form/${formId}`, { as: reporter })).status, 404);
    for (const who of [alice, submitter, offline]) {
      assert.equal((await call("GET", `/api/form/${formId}`, { as: who })).status, 200);
    }
  });
});
