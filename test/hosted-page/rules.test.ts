import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { settingsPath } from "./fixture.ts";
import { browserSession, screenshot } from "./session.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: true },
  { unique_system_name: "guests_2", type: "number", label: "Guests" },
  { unique_system_name: "diet_3", type: "text", label: "Diet", required: true },
  { unique_system_name: "price_4", type: "number", label: "Price" },
  { unique_system_name: "total_5", type: "number", label: "Total" },
  { unique_system_name: "country_6", type: "select", label: "Country", options: ["NZ", "FR"] },
  {
    unique_system_name: "city_7",
    type: "select",
    label: "City",
    options: ["Auckland", "Wellington", "Paris"],
  },
  { unique_system_name: "session_8", type: "radio", label: "Session", options: ["am", "pm"] },
];
const sections = {
  conditionallogicsettings: {
    rules: [{ fields: ["diet_3"], action: "show", when: { ">": [{ var: "guests_2" }, 1] } }],
  },
  calculatedfieldsettings: {
    fields: [
      {
        unique_system_name: "total_5",
        expression: { "*": [{ var: "guests_2" }, { var: "price_4" }] },
      },
    ],
  },
  privatedatalistlogicsettings: {
    rules: [
      {
        unique_system_name: "city_7",
        depends_on: "country_6",
        options_by_value: { NZ: ["Auckland", "Wellington"], FR: ["Paris"] },
      },
    ],
  },
  quantitylimitsettings: {
    inventory: [{ unique_system_name: "session_8", option: "am", quantity: 0 }],
  },
};

describe("hosted form page in Chromium: the form engine's rules live", {
  timeout: 120_000,
}, () => {
  const store = createMemoryStore();
  const s = browserSession({ store });

  it("hides a field, computes a total, narrows a cascading list, disables a sold-out option; stores what the server decides", async () => {
    const created = await s.env.call("POST", "/api/restricted/form", {
      as: s.alice,
      body: {
        form_configuration: { settings: { form_name: "Dinner", form_type: "classicsingle" } },
        form_definition: { pages: [{ fields }] },
      },
    });
    assert.equal(created.status, 200);
    const formId: string = created.body.id;
    for (const [section, body] of Object.entries(sections)) {
      const saved = await s.env.call("POST", settingsPath(formId, section), { as: s.alice, body });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    }
    const page = await s.openPage();
    await page.goto(`${s.env.base}/f/${formId}`);
    const diet = page.getByRole("textbox", { name: "Diet" });
    assert.equal(await diet.isHidden(), true);
    await page.getByRole("textbox", { name: "Name" }).fill("Ada");
    await page.getByRole("spinbutton", { name: "Guests" }).fill("3");
    assert.equal(await diet.isVisible(), true);
    await diet.fill("vegetarian");
    await page.getByRole("spinbutton", { name: "Guests" }).fill("1");
    assert.equal(await diet.isHidden(), true);
    await page.getByRole("spinbutton", { name: "Price" }).fill("12.5");
    assert.equal(await page.locator("output#f-total_5").textContent(), "12.5");
    const city = page.getByRole("combobox", { name: "City" });
    await page.getByRole("combobox", { name: "Country" }).selectOption("FR");
    assert.deepEqual(await city.locator("option").allTextContents(), ["Choose…", "Paris"]);
    await page.getByRole("combobox", { name: "Country" }).selectOption("NZ");
    assert.deepEqual(await city.locator("option").allTextContents(), [
      "Choose…",
      "Auckland",
      "Wellington",
    ]);
    await city.selectOption("Wellington");
    const sessions = page.getByRole("radiogroup", { name: "Session" });
    assert.equal(await sessions.getByRole("radio", { name: "am (sold out)" }).isDisabled(), true);
    await sessions.getByRole("radio", { name: "pm" }).check();
    await page.screenshot({ path: screenshot("hosted-page-rules.png"), fullPage: true });

    await page.getByRole("button", { name: "Submit" }).click();
    await page.locator("#thanks").waitFor();
    assert.deepEqual(s.strays, []);
    const listed = await s.submissions(formId);
    assert.equal(listed.results.length, 1);
    assert.deepEqual(listed.results[0].form_fields, [
      { unique_system_name: "name_1", submitted_value: "Ada" },
      { unique_system_name: "guests_2", submitted_value: "1" },
      { unique_system_name: "price_4", submitted_value: "12.5" },
      { unique_system_name: "total_5", submitted_value: "12.5" },
      { unique_system_name: "country_6", submitted_value: "NZ" },
      { unique_system_name: "city_7", submitted_value: "Wellington" },
      { unique_system_name: "session_8", submitted_value: "pm" },
    ]);
  });

  it("fills a calculated field from the other fields only, as the server does, even from a stored expression that reads it", async () => {
    const created = await s.env.call("POST", "/api/restricted/form", {
      as: s.alice,
      body: {
        form_configuration: { settings: { form_name: "Echo", form_type: "classicsingle" } },
        form_definition: {
          pages: [
            {
              fields: [
                { unique_system_name: "name_1", type: "text", label: "Name" },
                { unique_system_name: "echo_2", type: "text", label: "Echo" },
              ],
            },
          ],
        },
      },
    });
    assert.equal(created.status, 200);
    const formId: string = created.body.id;
    // Stored before F2 refused it: the field reads its own value, so each change would add an x.
    const stored = await store.get<{ id: string; form_configuration: Record<string, unknown> }>(
      "forms",
      formId,
      formId,
    );
    assert.ok(stored);
    stored.record.form_configuration.calculatedfieldsettings = {
      fields: [
        {
          unique_system_name: "echo_2",
          expression: { cat: [{ var: { cat: ["echo", "_2"] } }, "x", { var: "name_1" }] },
        },
      ],
    };
    await store.replace("forms", formId, stored.record);
    const page = await s.openPage();
    await page.goto(`${s.env.base}/f/${formId}`);
    const name = page.getByRole("textbox", { name: "Name" });
    for (const typed of ["A", "Ad", "Ada"]) await name.fill(typed);
    assert.equal(await page.locator("output#f-echo_2").textContent(), "xAda");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.locator("#thanks").waitFor();
    assert.deepEqual(s.strays, []);
    const listed = await s.submissions(formId);
    assert.deepEqual(listed.results[0].form_fields, [
      { unique_system_name: "name_1", submitted_value: "Ada" },
      { unique_system_name: "echo_2", submitted_value: "xAda" },
    ]);
  });
});
