/**
 * What an expression may read (docs/design.md §11): F2 refuses a read whose field name is not
 * written out, and a calculated field's stored value is the service's own whatever a stored
 * expression asks for, its own value or a later calculated field's included.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { sectionPath, withEngineForm } from "./fixture.ts";

const base = { name_1: "Ada", email_9: "ada@example.com", country_6: "NZ", city_7: "Auckland" };

/** Reads whose name is built, or that take all the values at once, or climb out of a scope. */
const unnamedReads: unknown[] = [
  { var: { cat: ["total", "_5"] } },
  { var: [{ cat: ["price", "_4"] }, 0] },
  { var: "" },
  { var: [] },
  { var: null },
  { get: [{ var: "" }, { cat: ["total", "_5"] }] },
  { map: [[1], { var: "../total_5" }] },
  { val: { cat: ["total", "_5"] } },
  { val: [] },
  { val: [[1], "total_5"] },
  { exists: { cat: ["total", "_5"] } },
  { missing: { merge: ["price_4", { cat: ["total", "_5"] }] } },
  { missing: [{ cat: ["total", "_5"] }] },
  { missing_some: [1, { merge: [{ cat: ["total", "_5"] }] }] },
];

/** Writes a form's section straight into the store, as F2 before these checks let it. */
async function storeSection(store: Store, formId: string, name: string, value: unknown) {
  const stored = await store.get<{ id: string; form_configuration: Record<string, unknown> }>(
    "forms",
    formId,
    formId,
  );
  assert.ok(stored);
  stored.record.form_configuration[name] = value;
  await store.replace("forms", formId, stored.record);
}

describe("form engine: what a calculation or a condition reads", () => {
  it("F2 refuses a read whose field name is not written out, with 400 naming the expression", async () => {
    const env = await withEngineForm({});
    for (const expression of unnamedReads) {
      const calculation = await env.call(
        "POST",
        sectionPath(env.formId, "calculatedfieldsettings"),
        { as: env.alice, body: { fields: [{ unique_system_name: "total_5", expression }] } },
      );
      assert.equal(calculation.status, 400, JSON.stringify(expression));
      assert.equal(calculation.body.error, "validation_failed");
      assert.deepEqual(
        calculation.body.issues.map((issue: { path: string }) => issue.path),
        ["fields.0.expression"],
        JSON.stringify(calculation.body.issues),
      );
      const condition = await env.call(
        "POST",
        sectionPath(env.formId, "conditionallogicsettings"),
        {
          as: env.alice,
          body: { rules: [{ fields: ["diet_3"], action: "show", when: { "!": [expression] } }] },
        },
      );
      assert.equal(condition.status, 400, JSON.stringify(expression));
      assert.deepEqual(
        condition.body.issues.map((issue: { path: string }) => issue.path),
        ["rules.0.when"],
        JSON.stringify(condition.body.issues),
      );
    }
    const refused = await env.call("POST", sectionPath(env.formId, "calculatedfieldsettings"), {
      as: env.alice,
      body: {
        fields: [{ unique_system_name: "total_5", expression: { var: { cat: ["total", "_5"] } } }],
      },
    });
    const nested = await env.call("POST", sectionPath(env.formId, "conditionallogicsettings"), {
      as: env.alice,
      body: {
        rules: [
          { fields: ["diet_3"], action: "show", when: { "==": [1, { val: { cat: ["a"] } }] } },
        ],
      },
    });
    assert.match(nested.body.issues[0].message, /\(val in ==\.1\)/);
    assert.deepEqual(refused.body.issues, [
      {
        path: "fields.0.expression",
        message:
          "reads a value whose name it does not write out (var): name each field it reads as a string",
      },
    ]);
    const { body } = await env.call("GET", `/api/form/${env.formId}`);
    assert.equal(body.form_configuration.calculatedfieldsettings, undefined);
    assert.equal(body.form_configuration.conditionallogicsettings, undefined);
  });

  it("F2 still takes reads that name their fields, and checks the fields they name", async () => {
    const env = await withEngineForm({});
    const named: [unknown, number][] = [
      [{ var: ["price_4", 0] }, 200],
      [{ val: "price_4" }, 200],
      [{ val: ["price_4"] }, 200],
      [{ exists: "guests_2" }, 200],
      [{ missing: ["price_4", "guests_2"] }, 200],
      [{ missing_some: [1, ["price_4", "guests_2"]] }, 200],
      [{ var: ["price_4", { var: "guests_2" }] }, 200],
      [{ preserve: { var: { cat: ["a", "b"] } } }, 200],
      [{ val: "total_5" }, 400],
      [{ missing: ["ghost_99"] }, 400],
      [{ var: ["price_4", { var: "total_5" }] }, 400],
    ];
    for (const [expression, status] of named) {
      const answer = await env.call("POST", sectionPath(env.formId, "calculatedfieldsettings"), {
        as: env.alice,
        body: { fields: [{ unique_system_name: "total_5", expression }] },
      });
      assert.equal(
        answer.status,
        status,
        `${JSON.stringify(expression)} ${JSON.stringify(answer.body)}`,
      );
    }
  });

  it("stores the service's value for a calculated field whatever a stored expression reads", async () => {
    const store = createMemoryStore();
    const env = await withEngineForm({}, { store });
    // Stored before F2 refused them: a name built at run time, the field itself, and a
    // calculated field listed later.
    await storeSection(store, env.formId, "calculatedfieldsettings", {
      fields: [
        { unique_system_name: "total_5", expression: { var: { cat: ["total", "_5"] } } },
        { unique_system_name: "diet_3", expression: { var: "diet_3" } },
        { unique_system_name: "price_4", expression: { var: { cat: ["phone", "_10"] } } },
        { unique_system_name: "phone_10", expression: { cat: ["p-", { var: "name_1" }] } },
      ],
    });
    const chosen = "CLIENT-CHOSEN";
    const posted = await env.submit({
      ...base,
      total_5: chosen,
      diet_3: chosen,
      price_4: chosen,
      phone_10: chosen,
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const stored = await env.stored(posted.body.id);
    assert.deepEqual(
      [stored.total_5, stored.diet_3, stored.price_4, stored.phone_10],
      ["", "", "", "p-Ada"],
    );
    // S6 sends the client's values again, with the stored ones merged: still the service's.
    const path = `/api/restricted/form/${env.formId}/submission/${posted.body.id}`;
    const updated = await env.call("POST", path, {
      as: env.alice,
      body: {
        form_fields: [
          { unique_system_name: "total_5", submitted_value: chosen },
          { unique_system_name: "name_1", submitted_value: "Bo" },
        ],
      },
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    const again = await env.stored(posted.body.id);
    assert.deepEqual([again.total_5, again.phone_10], ["", "p-Bo"]);
  });

  it("keeps a field calculated when its stored calculation no longer parses", async () => {
    const store = createMemoryStore();
    const env = await withEngineForm({}, { store });
    await storeSection(store, env.formId, "calculatedfieldsettings", {
      fields: [
        { unique_system_name: "total_5", expression: { var: "price_4" } },
        { unique_system_name: "phone_10" },
      ],
    });
    const posted = await env.submit({
      ...base,
      diet_3: "x",
      price_4: "3",
      phone_10: "CLIENT-CHOSEN",
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const stored = await env.stored(posted.body.id);
    assert.deepEqual([stored.total_5, stored.phone_10], ["3", ""]);
  });
});
