/**
 * Prefill and hidden fields in Chromium, on a desktop and a 390 px phone (docs/design.md
 * §21): the query fills in the fields the owner allows, a hidden field takes the query's
 * value or its default, what is submitted is what S1 reads back, and markup in the query is
 * shown as text, never run.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { formInput } from "../helpers.ts";
import { settingsPath } from "./fixture.ts";
import { browserSession, screenshot } from "./session.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: true, max_length: 40 },
  {
    unique_system_name: "campaign_2",
    type: "hidden",
    label: "Campaign",
    max_length: 20,
    default_value: "direct",
  },
  { unique_system_name: "secret_3", type: "text", label: "Secret" },
  { unique_system_name: "size_4", type: "select", label: "Size", options: ["S", "M"] },
];

const viewports = [
  ["desktop", { width: 900, height: 900 }],
  ["390 px", { width: 390, height: 844 }],
] as const;

describe("hosted form page in Chromium: prefill and hidden fields", {
  timeout: 180_000,
}, () => {
  const s = browserSession();

  async function createForm(): Promise<string> {
    const created = await s.env.call("POST", "/api/restricted/form", {
      as: s.alice,
      body: formInput("Newsletter", fields),
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const formId: string = created.body.id;
    const allowed = ["name_1", "campaign_2", "size_4"];
    const set = await s.env.call("POST", settingsPath(formId, "generalsettings"), {
      as: s.alice,
      body: { prefill_fields: allowed },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    return formId;
  }

  async function open(formId: string, query: string, viewport: (typeof viewports)[number][1]) {
    const page = await s.openPage();
    await page.setViewportSize(viewport);
    await page.goto(`${s.env.base}/f/${formId}?${query}`);
    return page;
  }

  /** Submits the page and reads the one stored submission back with S1. */
  async function submitAndRead(page: Page, formId: string) {
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByRole("status").waitFor();
    const [listed] = (await s.submissions(formId)).results;
    const read = await s.env.call("GET", `/api/restricted/form/${formId}/submission/${listed.id}`, {
      as: s.alice,
    });
    assert.equal(read.status, 200);
    return read.body.form_submission.form_fields;
  }

  const overflows = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth > window.innerWidth);

  for (const [label, viewport] of viewports) {
    it(`prefills the allowed text field and the hidden field, ignores the rest, and stores them (${label})`, async () => {
      const formId = await createForm();
      const page = await open(
        formId,
        "name_1=Ada&campaign_2=spring&secret_3=nope&size_4=XL",
        viewport,
      );
      assert.equal(await page.getByRole("textbox", { name: "Name" }).inputValue(), "Ada");
      assert.equal(await page.getByRole("textbox", { name: "Secret" }).inputValue(), "");
      assert.equal(await page.getByRole("combobox", { name: "Size" }).inputValue(), "");
      const hidden = page.locator("#f-campaign_2");
      assert.equal(await hidden.getAttribute("type"), "hidden");
      assert.equal(await hidden.inputValue(), "spring");
      assert.equal(await hidden.isVisible(), false);
      // Never drawn: no label, nothing a person reads or reaches.
      assert.equal(await page.getByText("Campaign").count(), 0);
      assert.equal(await page.getByLabel("Campaign").count(), 0);
      assert.equal(await overflows(page), false);
      await page.screenshot({
        path: screenshot(`hosted-page-prefilled-${viewport.width}.png`),
        fullPage: true,
      });

      await page.getByRole("combobox", { name: "Size" }).selectOption("M");
      assert.deepEqual(await submitAndRead(page, formId), [
        { unique_system_name: "name_1", submitted_value: "Ada" },
        { unique_system_name: "campaign_2", submitted_value: "spring" },
        { unique_system_name: "size_4", submitted_value: "M" },
      ]);
      assert.deepEqual(s.strays, []);
    });

    it(`stores a hidden field's default when the query gives none (${label})`, async () => {
      const formId = await createForm();
      const page = await open(formId, "size_4=S", viewport);
      assert.equal(await page.getByRole("combobox", { name: "Size" }).inputValue(), "S");
      await page.getByRole("textbox", { name: "Name" }).fill("Grace");
      assert.deepEqual(await submitAndRead(page, formId), [
        { unique_system_name: "name_1", submitted_value: "Grace" },
        { unique_system_name: "campaign_2", submitted_value: "direct" },
        { unique_system_name: "size_4", submitted_value: "S" },
      ]);
      assert.deepEqual(s.strays, []);
    });

    it(`shows markup from the query as text and never runs it (${label})`, async () => {
      const formId = await createForm();
      const attack = `"><script>window.pwned=1</script>`;
      const hiddenAttack = `"><img src=x>`;
      const page = await open(
        formId,
        `name_1=${encodeURIComponent(attack)}&campaign_2=${encodeURIComponent(hiddenAttack)}`,
        viewport,
      );
      assert.equal(await page.getByRole("textbox", { name: "Name" }).inputValue(), attack);
      assert.equal(await page.locator("#f-campaign_2").inputValue(), hiddenAttack);
      assert.equal(await page.evaluate(() => "pwned" in window), false);
      assert.equal(
        await page
          .locator("script:not([nonce]):not(#formwork-rules):not(#formwork-words), img")
          .count(),
        0,
      );
      await page.screenshot({
        path: screenshot(`hosted-page-prefill-escaped-${viewport.width}.png`),
      });
      assert.deepEqual(await submitAndRead(page, formId), [
        { unique_system_name: "name_1", submitted_value: attack },
        { unique_system_name: "campaign_2", submitted_value: hiddenAttack },
      ]);
      assert.equal(await page.evaluate(() => "pwned" in window), false);
      // A blocked inline script would be logged here as a CSP error.
      assert.deepEqual(s.strays, []);
    });
  }
});
