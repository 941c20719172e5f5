/**
 * The hosted page's prefill, as HTML (docs/design.md §21): the query fills in the fields
 * `generalsettings.prefill_fields` names when its values fit, hidden fields are
 * `<input type="hidden">` with their default and no label, and every value is escaped.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { conformingFetch, formInput, setup } from "../helpers.ts";
import { settingsPath } from "./fixture.ts";

/** A form of one field of each kind that can be prefilled, a field not allowed, and a file. */
export const prefillFields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: true, max_length: 40 },
  {
    unique_system_name: "campaign_2",
    type: "hidden",
    label: "Campaign",
    max_length: 10,
    default_value: "direct",
  },
  { unique_system_name: "size_3", type: "select", label: "Size", options: ["S", "M"] },
  { unique_system_name: "tone_4", type: "radio", label: "Tone", options: ["warm", "cold"] },
  {
    unique_system_name: "likes_5",
    type: "checkbox",
    label: "Likes",
    options: ["tea", "coffee", "cocoa"],
  },
  { unique_system_name: "note_6", type: "textarea", label: "Note" },
  { unique_system_name: "secret_7", type: "text", label: "Secret" },
  { unique_system_name: "age_8", type: "number", label: "Age", min: 0, max: 130 },
  { unique_system_name: "cv_9", type: "file", label: "CV" },
];

/** What the owner lets the page prefill: all but `secret_7` and the file. */
export const allowed = ["name_1", "campaign_2", "size_3", "tone_4", "likes_5", "note_6", "age_8"];

async function world() {
  const { service, call, user } = await setup();
  const alice = await user("alice@example.com");
  const created = await call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Signup", prefillFields),
  });
  const formId: string = created.body.id;
  const set = await call("POST", settingsPath(formId, "generalsettings"), {
    as: alice,
    body: { prefill_fields: allowed },
  });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  const page = async (query: string) => {
    const response = await conformingFetch(service)(
      new Request(`http://localhost/f/${formId}?${query}`),
    );
    assert.equal(response.status, 200);
    return response.text();
  };
  return { call, alice, formId, page };
}

/** The markup of one field's `<div class="field">`. */
function fieldOf(text: string, name: string): string {
  const start = text.indexOf(`<div class="field" data-name="${name}"`);
  assert.ok(start >= 0, name);
  return text.slice(start, text.indexOf("</div>\n", text.indexOf(`id="e-${name}"`, start)));
}

describe("hosted form page (extension): prefill and hidden fields", () => {
  it("fills in the allowed fields whose query values fit, and no other", async () => {
    const { page } = await world();
    const text = await page(
      "name_1=Ada&campaign_2=spring&size_3=M&tone_4=cold&likes_5=tea&likes_5=cocoa&note_6=Hi%0Athere&secret_7=x&age_8=36&cv_9=x",
    );
    assert.match(fieldOf(text, "name_1"), /<input type="text" id="f-name_1" [^>]* value="Ada">/);
    assert.equal(
      fieldOf(text, "campaign_2"),
      `<div class="field" data-name="campaign_2" data-type="hidden" data-label="Campaign">
<input type="hidden" id="f-campaign_2" name="campaign_2" value="spring">
<p class="error" id="e-campaign_2" hidden></p>
`,
    );
    assert.doesNotMatch(text, /<label for="f-campaign_2"/);
    assert.match(fieldOf(text, "size_3"), /<option value="M" selected>M<\/option>/);
    assert.doesNotMatch(fieldOf(text, "size_3"), /<option value="S" selected>/);
    assert.match(fieldOf(text, "tone_4"), /value="cold" aria-describedby="e-tone_4" checked>/);
    assert.doesNotMatch(fieldOf(text, "tone_4"), /value="warm"[^>]*checked/);
    const likes = fieldOf(text, "likes_5");
    assert.match(likes, /value="tea"[^>]* checked>/);
    assert.match(likes, /value="cocoa"[^>]* checked>/);
    assert.doesNotMatch(likes, /value="coffee"[^>]* checked>/);
    assert.match(fieldOf(text, "note_6"), />Hi\nthere<\/textarea>/);
    assert.doesNotMatch(fieldOf(text, "secret_7"), /value=/);
    assert.match(fieldOf(text, "age_8"), / value="36">/);
    assert.doesNotMatch(fieldOf(text, "cv_9"), /value=/);
    // The parser drops a newline right after `<textarea>`: the value's own is kept.
    assert.match(fieldOf(await page("note_6=%0AHi"), "note_6"), />\n\nHi<\/textarea>/);
  });

  it("ignores values that do not fit, keeping a hidden field's default", async () => {
    const { page } = await world();
    const text = await page(
      "name_1=" +
        "x".repeat(41) +
        "&campaign_2=spring-sale-2026&size_3=XL&tone_4=hot&likes_5=tea|tea&age_8=131&note_6=",
    );
    assert.doesNotMatch(fieldOf(text, "name_1"), /value=/);
    assert.match(fieldOf(text, "campaign_2"), /name="campaign_2" value="direct">/);
    assert.doesNotMatch(text, / selected>/);
    assert.doesNotMatch(text, / checked>/);
    assert.doesNotMatch(fieldOf(text, "age_8"), /value=/);
    assert.match(fieldOf(text, "note_6"), /><\/textarea>/);
    const plain = await page("");
    assert.match(fieldOf(plain, "campaign_2"), /value="direct">/);
    const checkbox = await page("likes_5=tea|coffee");
    assert.match(fieldOf(checkbox, "likes_5"), /value="coffee"[^>]* checked>/);
  });

  it("escapes a value, so that markup in the query is text", async () => {
    const { page } = await world();
    const attack = `"><script>alert(1)</script>`;
    const text = await page(
      `name_1=${encodeURIComponent(attack)}&note_6=${encodeURIComponent(`</textarea>${attack}`)}&campaign_2=${encodeURIComponent(`"'><b>`)}`,
    );
    assert.doesNotMatch(text, /<script>alert/);
    assert.match(
      fieldOf(text, "name_1"),
      / value="&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;">/,
    );
    assert.match(
      fieldOf(text, "note_6"),
      />&lt;\/textarea&gt;&quot;&gt;&lt;script&gt;alert\(1\)&lt;\/script&gt;<\/textarea>/,
    );
    assert.match(fieldOf(text, "campaign_2"), / value="&quot;&#39;&gt;&lt;b&gt;">/);
  });

  it("prefills nothing the owner has not allowed, and no field since removed", async () => {
    const { call, alice, formId, page } = await world();
    const replaced = await call("POST", `/api/restricted/form/${formId}/`, {
      as: alice,
      body: formInput("Signup", [prefillFields[6], prefillFields[7]]),
    });
    assert.equal(replaced.status, 200);
    const text = await page("name_1=Ada&secret_7=x&age_8=3");
    assert.doesNotMatch(text, /data-name="name_1"/);
    assert.doesNotMatch(fieldOf(text, "secret_7"), /value=/);
    assert.match(fieldOf(text, "age_8"), / value="3">/);
  });
});
