/**
 * Run by section-registry.test.ts inside a copy of the project whose only changes are a
 * made-up section module (`hiddenfieldsettings`: the fields it names are always hidden) and
 * its line in the registry. It proves, through `service.fetch`, that the section is then in
 * the OpenAPI document, F2 accepts and checks it, F5 returns it, the engine applies it on S2
 * and the hosted page hides its fields live. Outside that copy the section does not exist.
 */
import assert from "node:assert/strict";
import { conformingFetch } from "../helpers.ts";
import { sectionPath, withEngineForm } from "./fixture.ts";

const env = await withEngineForm({});
const { call, alice, formId } = env;

const doc = await call("GET", "/openapi.json");
const update = doc.body.paths["/api/restricted/form/{formId}/"].post;
const query = update.parameters.find((p: { name: string }) => p.name === "settingsSection");
assert.ok(query.schema.enum.includes("hiddenfieldsettings"), "the OpenAPI document lists it");

const wrong = await call("POST", sectionPath(formId, "hiddenfieldsettings"), {
  as: alice,
  body: { fields: ["nope_99"] },
});
assert.equal(wrong.status, 400, "F2 checks it against the form");
assert.deepEqual(wrong.body.issues, [
  { path: "fields.0", message: "nope_99 is not a field of this form" },
]);
const saved = await call("POST", sectionPath(formId, "hiddenfieldsettings"), {
  as: alice,
  body: { fields: ["phone_10"] },
});
assert.equal(saved.status, 200, "F2 accepts it");

const rendered = await call("GET", `/api/form/${formId}`);
assert.equal(rendered.status, 200);
assert.deepEqual(rendered.body.form_configuration.hiddenfieldsettings, { fields: ["phone_10"] });

const posted = await env.submit({ name_1: "Ada", diet_3: "none", phone_10: "555" });
assert.equal(posted.status, 200, JSON.stringify(posted.body));
const stored = await env.stored(posted.body.id);
assert.equal(stored.phone_10, undefined, "the engine drops the hidden field's value");
assert.equal(stored.name_1, "Ada");

const page = await conformingFetch(env.service)(new Request(`http://localhost/f/${formId}`));
const rules = /<script type="application\/json" id="formwork-rules">(.*?)<\/script>/s.exec(
  await page.text(),
);
assert.deepEqual(JSON.parse(rules?.[1] ?? "{}").conditions, [
  { fields: ["phone_10"], action: "show", when: false },
]);
console.log("made-up section: OpenAPI, F2, F5, S2 and the hosted page all take it");
