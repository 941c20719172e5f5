import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { formInput, setup, type TestUser } from "./helpers.ts";

const textField = { unique_system_name: "gpi_1", type: "text", label: "Name", required: true };

async function withForm(fields: unknown[] = [textField]) {
  const env = await setup();
  const alice = await env.user("alice@example.com");
  const created = await env.call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Contact", fields),
  });
  assert.equal(created.status, 200);
  return { ...env, alice, formId: created.body.id as string };
}

async function grant(env: Awaited<ReturnType<typeof withForm>>, email: string, flags: string) {
  const path = `/api/restricted/form/${env.formId}/usersecurity?collaborator_email=${email}&${flags}`;
  assert.equal((await env.call("POST", path, { as: env.alice })).status, 200);
  return env.user(email);
}

const settingsPath = (formId: string, section: string) =>
  `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=${section}`;

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

describe("F2 settings sections", () => {
  const sections = [
    "conditionallogicsettings",
    "quantitylimitsettings",
    "calculatedfieldsettings",
    "paymentsettings",
    "securitysettings",
    "destinationsettings",
    "thankspagesettings",
    "confirmationemailsettings",
    "dynamicdatafieldsettings",
    "privatedatalistlogicsettings",
    "generalsettings",
  ];

  it("accepts every section of the interface with the exact answer", async () => {
    const { call, alice, formId } = await withForm();
    for (const section of sections) {
      const { status, body } = await call("POST", settingsPath(formId, section), {
        as: alice,
        body: {},
      });
      assert.equal(status, 200, section);
      assert.deepEqual(body, {
        id: "",
        message: "Form updated successfully",
        action_successful: true,
        error: "",
      });
    }
  });

  it("merges generalsettings into the form's settings and stamps the modification", async () => {
    const { call, alice, formId } = await withForm();
    const body = { form_name: "New name", form_description: "About", analytics_tracking_id: "G-1" };
    assert.equal(
      (await call("POST", settingsPath(formId, "generalsettings"), { as: alice, body })).status,
      200,
    );
    const list = await call("GET", "/api/restricted/user/form", { as: alice });
    const [summary] = list.body.results;
    assert.deepEqual(summary.form_configuration.settings, {
      form_name: "New name",
      form_description: "About",
      form_type: "classicsingle",
      form_system_version: 1,
    });
    assert.notEqual(summary.modified_date_utc, "0001-01-01T00:00:00");
  });

  it("refuses bad section bodies, unknown sections and bad flags with 400", async () => {
    const { call, alice, formId } = await withForm();
    const cases: [string, unknown, string][] = [
      [settingsPath(formId, "generalsettings"), { is_disabled: "yes" }, "is_disabled"],
      [settingsPath(formId, "generalsettings"), { form_name: "" }, "form_name"],
      [settingsPath(formId, "generalsettings"), { colour: "red" }, "colour"],
      [
        settingsPath(formId, "thankspagesettings"),
        { thanks_behaviour: "url_redirect" },
        "thanks_behaviour_redirect_url",
      ],
      [
        settingsPath(formId, "thankspagesettings"),
        { thanks_behaviour: "confetti" },
        "thanks_behaviour",
      ],
      [
        settingsPath(formId, "thankspagesettings"),
        { thanks_behaviour_redirect_url: "javascript:alert(1)" },
        "thanks_behaviour_redirect_url",
      ],
      [
        settingsPath(formId, "quantitylimitsettings"),
        { max_total_submissions: 1.5 },
        "max_total_submissions",
      ],
      [settingsPath(formId, "quantitylimitsettings"), { closes_at_utc: "soon" }, "closes_at_utc"],
      [settingsPath(formId, "securitysettings"), { requires_login: 1 }, "requires_login"],
      [settingsPath(formId, "paymentsettings"), [1, 2], ""],
      [settingsPath(formId, "paymentsettings"), undefined, ""],
      [settingsPath(formId, "thankspagesettings"), [], ""],
      [settingsPath(formId, "colourschemesettings"), {}, "settingsSection"],
      [`/api/restricted/form/${formId}/?updateSettingsOnly=1`, {}, "settingsSection"],
      [
        `/api/restricted/form/${formId}/?updateSettingsOnly=yes&settingsSection=generalsettings`,
        {},
        "updateSettingsOnly",
      ],
    ];
    for (const [path, body, at] of cases) {
      const answer = await call("POST", path, { as: alice, body });
      assert.equal(answer.status, 400, `${path} ${JSON.stringify(body)}`);
      assert.equal(answer.body.error, "validation_failed");
      assert.ok(
        answer.body.issues.some((i: { path: string }) => i.path === at),
        JSON.stringify(answer.body),
      );
    }
    const [summary] = (await call("GET", "/api/restricted/user/form", { as: alice })).body.results;
    assert.equal(summary.modified_date_utc, "0001-01-01T00:00:00");
  });

  it("lets editors change settings, not reporters, and hides the form from strangers", async () => {
    const env = await withForm();
    const editor = await grant(env, "ed@example.com", "has_form_editor=1");
    const reporter = await grant(
      env,
      "rep@example.com",
      "has_reporting_full=1&has_account_management=1",
    );
    const stranger = await env.user("who@example.com");
    const path = settingsPath(env.formId, "conditionallogicsettings");
    assert.equal((await env.call("POST", path, { as: editor, body: { rules: [] } })).status, 200);
    assert.equal((await env.call("POST", path, { as: reporter, body: {} })).status, 403);
    assert.equal((await env.call("POST", path, { as: stranger, body: {} })).status, 404);
    assert.equal((await env.call("POST", path, { body: {} })).status, 401);
  });

  it("keeps both of two concurrent edits of different sections", async () => {
    const { call, alice, formId } = await withForm();
    await Promise.all([
      call("POST", settingsPath(formId, "conditionallogicsettings"), { as: alice, body: { a: 1 } }),
      call("POST", settingsPath(formId, "calculatedfieldsettings"), { as: alice, body: { b: 2 } }),
      call("POST", settingsPath(formId, "thankspagesettings"), {
        as: alice,
        body: { thanks_behaviour_message: "c" },
      }),
    ]);
    const { form_configuration } = (await call("GET", `/api/form/${formId}`)).body;
    assert.deepEqual(form_configuration.conditionallogicsettings, { a: 1 });
    assert.deepEqual(form_configuration.calculatedfieldsettings, { b: 2 });
    assert.equal(form_configuration.thankspagesettings.thanks_behaviour_message, "c");
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
