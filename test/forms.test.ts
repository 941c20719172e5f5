import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { grant, settingsPath, textField, withForm } from "./form-fixture.ts";
import { formInput, setup } from "./helpers.ts";

describe("form create and whole update (extension)", () => {
  it("creates a form and answers the envelope", async () => {
    const { call, user } = await setup();
    const alice = await user("alice@example.com");
    const { status, body } = await call("POST", "/api/restricted/form", {
      as: alice,
      body: formInput(),
    });
    assert.equal(status, 200);
    assert.equal(body.message, "Form created successfully");
    assert.equal(body.action_successful, true);
    assert.equal(body.error, "");
    assert.match(body.id, /^[0-9a-f-]{36}$/);
  });

  it("refuses invalid forms, naming each field at fault, and stores nothing", async () => {
    const { call, user } = await setup();
    const alice = await user("alice@example.com");
    const other = await user("other@example.com");
    const foreign = await call("POST", "/api/restricted/datalist", {
      as: other,
      body: { settings: { list_name: "x" } },
    });
    const cases: [unknown, string][] = [
      [
        { form_configuration: { settings: { form_type: "classicsingle" } } },
        "form_configuration.settings.form_name",
      ],
      [formInput(""), "form_configuration.settings.form_name"],
      [
        {
          ...formInput(),
          form_configuration: { settings: { form_name: "x", form_type: "wizard" } },
        },
        "form_configuration.settings.form_type",
      ],
      [
        formInput("x", [{ ...textField, unique_system_name: "name" }]),
        "form_definition.pages.0.fields.0.unique_system_name",
      ],
      [
        formInput("x", [{ ...textField, type: "hologram" }]),
        "form_definition.pages.0.fields.0.type",
      ],
      [
        formInput("x", [textField, { ...textField, type: "email" }]),
        "form_definition.pages.0.fields.1",
      ],
      [
        formInput("x", [{ unique_system_name: "gpi_2", type: "select" }]),
        "form_definition.pages.0.fields.0",
      ],
      [
        formInput("x", [{ unique_system_name: "gpi_2", type: "radio", options: ["a|b"] }]),
        "form_definition.pages.0.fields.0.options.0",
      ],
      [
        formInput("x", [
          { unique_system_name: "gpi_2", type: "select", datalist_id: foreign.body.id },
        ]),
        "form_definition.pages.0.fields.0",
      ],
      [
        formInput("x", [{ unique_system_name: "gpi_2", type: "file", max_file_size: -1 }]),
        "form_definition.pages.0.fields.0.max_file_size",
      ],
      [[], "form_configuration"],
    ];
    for (const [body, path] of cases) {
      const answer = await call("POST", "/api/restricted/form", { as: alice, body });
      assert.equal(answer.status, 400, JSON.stringify(body));
      assert.equal(answer.body.error, "validation_failed");
      assert.ok(
        answer.body.issues.some((i: { path: string }) => i.path === path),
        JSON.stringify(answer.body),
      );
    }
    assert.deepEqual(
      (await call("GET", "/api/restricted/user/form", { as: alice })).body.results,
      [],
    );
  });

  it("replaces name, type and definition for owner and editor only, keeping other settings", async () => {
    const env = await withForm();
    const { call, alice, formId } = env;
    await call("POST", settingsPath(formId, "thankspagesettings"), {
      as: alice,
      body: { thanks_behaviour_message: "Ta" },
    });
    const editor = await grant(env, "ed@example.com", "has_form_editor=1");
    const reporter = await grant(env, "rep@example.com", "has_reporting_full=1");
    const next = formInput("Renamed", [
      { unique_system_name: "gpi_9", type: "date", label: "When" },
    ]);
    const answer = await call("POST", `/api/restricted/form/${formId}/`, {
      as: editor,
      body: next,
    });
    assert.equal(answer.status, 200);
    assert.equal(answer.body.message, "Form updated successfully");
    const rendered = await call("GET", `/api/form/${formId}`);
    assert.equal(rendered.body.form_configuration.settings.form_name, "Renamed");
    assert.equal(rendered.body.form_definition.pages[0].fields[0].unique_system_name, "gpi_9");
    assert.equal(
      rendered.body.form_configuration.thankspagesettings.thanks_behaviour_message,
      "Ta",
    );
    assert.equal(
      (await call("POST", `/api/restricted/form/${formId}`, { as: reporter, body: next })).status,
      403,
    );
  });
});

describe("F1 clone", () => {
  it("copies the form into a new one owned by the caller", async () => {
    const env = await withForm();
    const { call, alice, formId } = env;
    const editor = await grant(env, "ed@example.com", "has_form_editor=1");
    const { status, body } = await call("POST", `/api/restricted/form/${formId}/clone`, {
      as: editor,
    });
    assert.equal(status, 200);
    assert.equal(body.message, "Form cloned successfully");
    assert.notEqual(body.id, formId);
    const mine = await call("GET", "/api/restricted/user/form", { as: editor });
    const clone = mine.body.results.find((f: { id: string }) => f.id === body.id);
    assert.equal(clone.form_configuration.settings.form_name, "Contact");
    assert.deepEqual(mine.body.accessible_form_ids_account_management_access, [body.id]);
    const again = await call("POST", `/api/restricted/form/${formId}/clone`, { as: alice });
    assert.equal(again.status, 200);
  });

  it("answers 403 to a collaborator without the editor role and 404 to a stranger", async () => {
    const env = await withForm();
    const reporter = await grant(env, "rep@example.com", "has_reporting_full=1");
    const stranger = await env.user("who@example.com");
    const path = `/api/restricted/form/${env.formId}/clone`;
    const denied = await env.call("POST", path, { as: reporter });
    assert.equal(denied.status, 403);
    assert.equal(denied.body.error, "forbidden");
    const hidden = await env.call("POST", path, { as: stranger });
    assert.equal(hidden.status, 404);
    assert.equal(hidden.body.message, "Form not found");
    const missing = await env.call(
      "POST",
      "/api/restricted/form/01234567-89ab-7def-8123-456789abcdef/clone",
      {
        as: env.alice,
      },
    );
    assert.deepEqual(missing.body, hidden.body);
  });
});

describe("F3 delete", () => {
  it("deletes the form for the owner or an account manager, never for an editor", async () => {
    const env = await withForm();
    const { call, alice, formId } = env;
    const editor = await grant(env, "ed@example.com", "has_form_editor=1");
    const manager = await grant(env, "boss@example.com", "has_account_management=1");
    const path = settingsPath(formId, "generalsettingsdelete");
    assert.equal((await call("POST", path, { as: editor })).status, 403);
    const { status, body } = await call("POST", path, { as: manager });
    assert.equal(status, 200);
    assert.equal(body.message, "Form updated successfully");
    for (const who of [alice, editor, manager]) {
      assert.deepEqual(
        (await call("GET", "/api/restricted/user/form", { as: who })).body.results,
        [],
      );
      assert.equal(
        (await call("GET", `/api/restricted/form/${formId}/usersecurity`, { as: who })).status,
        404,
      );
    }
    assert.equal((await call("GET", `/api/form/${formId}`)).status, 404);
    assert.equal((await call("POST", path, { as: alice })).status, 404);
  });
});
