import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { engineFields, sectionPath, withEngineForm } from "./fixture.ts";

const base = { name_1: "Ada", email_9: "ada@example.com", country_6: "NZ", city_7: "Auckland" };

describe("form engine: S2 and S6 apply the rules", () => {
  it("drops a hidden field's value and never requires it", async () => {
    const env = await withEngineForm();
    const posted = await env.submit({ ...base, guests_2: "0", diet_3: "vegan" });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const stored = await env.stored(posted.body.id);
    assert.equal(stored.diet_3, undefined);
    const missing = await env.submit({ ...base, guests_2: "2" });
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body.issues, [{ path: "diet_3", message: "is required" }]);
  });

  it("requires a field while its require rule holds", async () => {
    const env = await withEngineForm();
    const answer = await env.submit({ ...base, email_9: "" });
    assert.equal(answer.status, 400);
    assert.deepEqual(answer.body.issues, [{ path: "phone_10", message: "is required" }]);
    assert.equal((await env.submit({ ...base, email_9: "", phone_10: "123" })).status, 200);
  });

  it("stores the calculated total whatever the client sent", async () => {
    const env = await withEngineForm();
    const posted = await env.submit({
      ...base,
      guests_2: "3",
      diet_3: "none",
      price_4: "12.5",
      total_5: "1",
    });
    assert.equal(posted.status, 200);
    assert.equal((await env.stored(posted.body.id)).total_5, "37.5");
  });

  it("stores an empty total when the expression fails, and treats a failing condition as false", async () => {
    const env = await withEngineForm({
      calculatedfieldsettings: {
        fields: [{ unique_system_name: "total_5", expression: { "/": [{ var: "price_4" }, 0] } }],
      },
      conditionallogicsettings: {
        rules: [
          { fields: ["diet_3"], action: "show", when: { "/": [1, { var: "guests_2" }] } },
          { fields: ["phone_10"], action: "require", when: { "+": [{ var: "name_1" }, 1] } },
        ],
      },
    });
    const posted = await env.submit({ ...base, guests_2: "0", price_4: "3", diet_3: "x" });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const stored = await env.stored(posted.body.id);
    assert.equal(stored.total_5, "");
    assert.equal(stored.diet_3, undefined);
  });

  it("evaluates expressions over fields not submitted without failing", async () => {
    const env = await withEngineForm({
      calculatedfieldsettings: {
        fields: [
          {
            unique_system_name: "total_5",
            expression: { cat: [{ var: "price_4" }, "/", { var: "name_1" }] },
          },
        ],
      },
      conditionallogicsettings: {
        rules: [
          { fields: ["phone_10"], action: "require", when: { ">": [{ var: "price_4" }, 10] } },
        ],
      },
    });
    const posted = await env.submit({ name_1: "Ada", diet_3: "x", email_9: "" });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    const stored = await env.stored(posted.body.id);
    // price_4 was not submitted, so its value is "" (docs/design.md §11): the condition over it is
    // false and phone_10 is not required.
    assert.equal(stored.total_5, "/Ada");
    assert.equal(stored.phone_10, undefined);
  });

  it("offers a cascading field only the options of the chosen value", async () => {
    const env = await withEngineForm();
    const wrong = await env.submit({ ...base, country_6: "FR", city_7: "Auckland" });
    assert.equal(wrong.status, 400);
    assert.deepEqual(wrong.body.issues, [{ path: "city_7", message: "is not one of the options" }]);
    const none = await env.submit({ ...base, country_6: "", city_7: "Auckland" });
    assert.equal(none.status, 400);
    assert.equal((await env.submit({ ...base, country_6: "FR", city_7: "Paris" })).status, 200);
  });

  it("ignores rules about a field removed from the definition since", async () => {
    const env = await withEngineForm();
    const fields = engineFields.filter(
      (f) => !["diet_3", "total_5", "city_7"].includes(f.unique_system_name),
    );
    const replaced = await env.call("POST", `/api/restricted/form/${env.formId}`, {
      as: env.alice,
      body: {
        form_configuration: { settings: { form_name: "Dinner", form_type: "classicsingle" } },
        form_definition: { pages: [{ fields }] },
      },
    });
    assert.ok(replaced.status === 200, JSON.stringify(replaced.body));
    const posted = await env.submit({ name_1: "Ada", guests_2: "2", email_9: "a@b.co" });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    assert.deepEqual(await env.stored(posted.body.id), {
      name_1: "Ada",
      guests_2: "2",
      email_9: "a@b.co",
    });
    assert.equal((await env.call("GET", `/api/form/${env.formId}`)).status, 200);
  });

  it("computes calculations in drafts without requiring fields or taking inventory", async () => {
    const env = await withEngineForm();
    const draft = await env.submit({ guests_2: "2", price_4: "5", session_8: "am" }, true);
    assert.equal(draft.status, 200, JSON.stringify(draft.body));
    assert.equal((await env.stored(draft.body.id)).total_5, "10");
    for (let n = 0; n < 2; n++) {
      const answer = await env.submit({ ...base, session_8: "am" });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
    }
  });

  it("S6 applies the rules again and takes inventory when a draft becomes a submission", async () => {
    const env = await withEngineForm();
    const draft = await env.submit({ guests_2: "2", price_4: "5", session_8: "am" }, true);
    const path = `/api/restricted/form/${env.formId}/submission/${draft.body.id}`;
    const incomplete = await env.call("POST", path, {
      as: env.alice,
      body: { form_fields: [], is_draft_submission: false },
    });
    assert.equal(incomplete.status, 400);
    const update = (values: Record<string, string>) =>
      env.call("POST", path, {
        as: env.alice,
        body: {
          form_fields: Object.entries(values).map(([unique_system_name, submitted_value]) => ({
            unique_system_name,
            submitted_value,
          })),
          is_draft_submission: false,
        },
      });
    const done = await update({ ...base, diet_3: "any", price_4: "7", total_5: "0" });
    assert.equal(done.status, 200, JSON.stringify(done.body));
    assert.equal((await env.stored(draft.body.id)).total_5, "14");
    assert.equal((await env.submit({ ...base, session_8: "am" })).status, 200);
    const soldOut = await env.submit({ ...base, session_8: "am" });
    assert.equal(soldOut.status, 400);
    assert.deepEqual(soldOut.body.issues, [{ path: "session_8", message: "am is sold out" }]);
  });

  it("takes a dynamic field's options from its datalist, read once per request", async () => {
    const env = await withEngineForm({});
    const list = await env.call("POST", "/api/restricted/datalist", {
      as: env.alice,
      body: { settings: { list_name: "Cities" } },
    });
    const entries = await env.call("POST", `/api/restricted/datalist/${list.body.id}/entry`, {
      as: env.alice,
      body: [{ entry_value: "Lyon" }, { entry_value: "Nice" }],
    });
    assert.equal(entries.status, 200, JSON.stringify(entries.body));
    const section = { fields: [{ unique_system_name: "city_7", datalist_id: list.body.id }] };
    const saved = await env.call("POST", sectionPath(env.formId, "dynamicdatafieldsettings"), {
      as: env.alice,
      body: section,
    });
    assert.equal(saved.status, 200);
    assert.equal((await env.submit({ name_1: "A", diet_3: "x", city_7: "Lyon" })).status, 200);
    const wrong = await env.submit({ name_1: "A", diet_3: "x", city_7: "Auckland" });
    assert.equal(wrong.status, 400);
    const rendered = await env.call("GET", `/api/form/${env.formId}`);
    const city = rendered.body.form_definition.pages[0].fields.find(
      (f: { unique_system_name: string }) => f.unique_system_name === "city_7",
    );
    assert.deepEqual(city.options, ["Lyon", "Nice"]);
  });
});
