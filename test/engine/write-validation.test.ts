import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { engineFields, engineSections, sectionPath, withEngineForm } from "./fixture.ts";

describe("form engine: F2 validates each rule section against the form", () => {
  it("accepts the engine's sections and F5 returns them", async () => {
    const env = await withEngineForm();
    const { body } = await env.call("GET", `/api/form/${env.formId}`);
    assert.deepEqual(
      body.form_configuration.conditionallogicsettings,
      engineSections.conditionallogicsettings,
    );
  });

  it("refuses unknown fields, bad expressions, cycles, unknown options and a non-email recipient with 400 naming the path", async () => {
    const env = await withEngineForm({}, {}, [
      ...engineFields,
      { unique_system_name: "cv_11", type: "file", label: "CV" },
    ]);
    const cases: [string, unknown, string[]][] = [
      [
        "conditionallogicsettings",
        { rules: [{ fields: ["nope_99"], action: "show", when: true }] },
        ["rules.0.fields.0"],
      ],
      [
        "conditionallogicsettings",
        { rules: [{ fields: ["diet_3"], action: "hide", when: true }] },
        ["rules.0.action"],
      ],
      [
        "conditionallogicsettings",
        { rules: [{ fields: ["diet_3"], action: "show", when: { frobnicate: [1] } }] },
        ["rules.0.when"],
      ],
      [
        "conditionallogicsettings",
        { rules: [{ fields: ["diet_3"], action: "show", when: { var: "ghost_5" } }] },
        ["rules.0.when"],
      ],
      [
        "calculatedfieldsettings",
        {
          fields: [{ unique_system_name: "total_5", expression: { "+": [{ var: "total_5" }, 1] } }],
        },
        ["fields.0.expression"],
      ],
      [
        "calculatedfieldsettings",
        {
          fields: [
            { unique_system_name: "total_5", expression: { var: "price_4" } },
            { unique_system_name: "price_4", expression: { var: "total_5" } },
          ],
        },
        ["fields.0.expression"],
      ],
      [
        "calculatedfieldsettings",
        { fields: [{ unique_system_name: "gone_77", expression: 1 }] },
        ["fields.0.unique_system_name"],
      ],
      [
        "calculatedfieldsettings",
        { fields: [{ unique_system_name: "cv_11", expression: "x" }] },
        ["fields.0.unique_system_name"],
      ],
      [
        "quantitylimitsettings",
        { inventory: [{ unique_system_name: "session_8", option: "night", quantity: 3 }] },
        ["inventory.0.option"],
      ],
      [
        "quantitylimitsettings",
        { inventory: [{ unique_system_name: "session_8", option: "am", quantity: -1 }] },
        ["inventory.0.quantity"],
      ],
      [
        "privatedatalistlogicsettings",
        {
          rules: [{ unique_system_name: "name_1", depends_on: "country_6", options_by_value: {} }],
        },
        ["rules.0.unique_system_name"],
      ],
      [
        "privatedatalistlogicsettings",
        {
          rules: [
            { unique_system_name: "city_7", depends_on: "country_6", options_by_value: { NZ: 3 } },
          ],
        },
        ["rules.0.options_by_value.NZ"],
      ],
      [
        "dynamicdatafieldsettings",
        { fields: [{ unique_system_name: "city_7", datalist_id: "not-a-guid" }] },
        ["fields.0.datalist_id"],
      ],
      [
        "confirmationemailsettings",
        { enabled: true, recipient_field: "name_1" },
        ["recipient_field"],
      ],
      [
        "confirmationemailsettings",
        { enabled: true, recipient_field: "ghost_1" },
        ["recipient_field"],
      ],
    ];
    for (const [section, body, paths] of cases) {
      const answer = await env.call("POST", sectionPath(env.formId, section), {
        as: env.alice,
        body,
      });
      assert.equal(answer.status, 400, `${section} ${JSON.stringify(body)}`);
      assert.equal(answer.body.error, "validation_failed");
      assert.deepEqual(
        answer.body.issues.map((issue: { path: string }) => issue.path),
        paths,
        `${section} ${JSON.stringify(answer.body.issues)}`,
      );
    }
    const { body } = await env.call("GET", `/api/form/${env.formId}`);
    assert.equal(body.form_configuration.conditionallogicsettings, undefined);
  });

  it("holds rule sections to the bounds of docs/design.md §8", async () => {
    const env = await withEngineForm({});
    let deep: unknown = true;
    for (let n = 0; n < 40; n++) deep = { "!": [deep] };
    const tooDeep = { rules: [{ fields: ["diet_3"], action: "show", when: deep }] };
    const big = {
      rules: [{ fields: ["diet_3"], action: "show", when: { in: ["x", "y".repeat(70_000)] } }],
    };
    for (const body of [tooDeep, big]) {
      const answer = await env.call("POST", sectionPath(env.formId, "conditionallogicsettings"), {
        as: env.alice,
        body,
      });
      assert.equal(answer.status, 400);
      assert.equal(answer.body.error, "validation_failed");
    }
  });

  it("documents each rule section's schema in the OpenAPI document", async () => {
    const env = await withEngineForm({});
    const { body } = await env.call("GET", "/openapi.json");
    const text = JSON.stringify(body);
    for (const key of ["depends_on", "options_by_value", "recipient_field", "inventory"]) {
      assert.ok(text.includes(key), key);
    }
  });
});
