import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { grant, settingsPath, withForm } from "./form-fixture.ts";

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
    assert.deepEqual(form_configuration.conditionallogicsettings, { a: 1, rules: [] });
    assert.deepEqual(form_configuration.calculatedfieldsettings, { b: 2, fields: [] });
    assert.equal(form_configuration.thankspagesettings.thanks_behaviour_message, "c");
  });
});
