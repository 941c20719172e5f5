import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { settingsPath } from "./fixture.ts";
import { browserSession, screenshot, viewports } from "./session.ts";

/** An RSVP of three pages; the second shows only to a guest who is coming. */
const rsvp = [
  {
    title: "You",
    fields: [
      { unique_system_name: "name_1", type: "text", label: "Name", required: true },
      { unique_system_name: "coming_2", type: "radio", label: "Coming", options: ["yes", "no"] },
    ],
  },
  {
    title: "Guests",
    fields: [
      { unique_system_name: "guests_3", type: "number", label: "Guests", required: true, min: 1 },
      { unique_system_name: "diet_4", type: "text", label: "Diet" },
    ],
  },
  {
    title: "Anything else",
    fields: [{ unique_system_name: "note_5", type: "textarea", label: "Note" }],
  },
];

/** What the page shows of its steps: the count, the current step's title, the buttons. */
async function shown(page: Page) {
  const state = await page.evaluate(() => ({
    count: document.getElementById("step-count")?.textContent,
    step: [...document.querySelectorAll<HTMLElement>("section.step")]
      .filter((section) => !section.hidden)
      .map((section) => section.querySelector("h2")?.textContent),
    indicator: [...document.querySelectorAll<HTMLElement>(".steps li")]
      .filter((item) => !item.hidden)
      .map((item) => `${item.textContent}${item.getAttribute("aria-current") ? " *" : ""}`),
    hash: location.hash,
  }));
  return {
    ...state,
    back: await page.locator("#step-back").isVisible(),
    next: await page.locator("#step-next").isVisible(),
    submit: await page.locator("button[type=submit]").isVisible(),
  };
}

describe("hosted form page in Chromium: pages as steps", { timeout: 180_000 }, () => {
  const s = browserSession();

  async function createForm(formType = "classicmulti") {
    const created = await s.env.call("POST", "/api/restricted/form", {
      as: s.alice,
      body: {
        form_configuration: { settings: { form_name: "RSVP", form_type: formType } },
        form_definition: { pages: rsvp },
      },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const formId: string = created.body.id;
    const saved = await s.env.call("POST", settingsPath(formId, "conditionallogicsettings"), {
      as: s.alice,
      body: {
        rules: [
          {
            fields: ["guests_3", "diet_4"],
            action: "show",
            when: { "==": [{ var: "coming_2" }, "yes"] },
          },
        ],
      },
    });
    assert.equal(saved.status, 200, JSON.stringify(saved.body));
    return formId;
  }

  for (const viewport of viewports) {
    it(`shows one page at a time, checks the page it leaves, skips a hidden page and keeps the step in the address (${viewport.name})`, async () => {
      const formId = await createForm();
      const page = await s.openPage();
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      const posts: string[] = [];
      page.on("request", (request) => {
        if (request.method() === "POST") posts.push(new URL(request.url()).pathname);
      });
      await page.goto(`${s.env.base}/f/${formId}`);
      // "Guests" shows only to a guest who is coming: not yet.
      const first = {
        count: "Step 1 of 2",
        step: ["You"],
        indicator: ["You *", "Anything else"],
        hash: "",
        back: false,
        next: true,
        submit: false,
      };
      assert.deepEqual(await shown(page), first);
      await page.screenshot({ path: screenshot(`hosted-page-step-1-${viewport.name}.png`) });

      // Next checks the page it leaves, as S2 would, and stays.
      await page.getByRole("button", { name: "Next" }).click();
      assert.equal(await page.locator("#e-name_1").textContent(), "Name is required");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "f-name_1");
      assert.deepEqual(await shown(page), first);
      await page.getByRole("textbox", { name: "Name" }).fill("Ada");
      assert.equal(await page.locator("#e-name_1").isHidden(), true);
      await page.getByRole("radio", { name: "yes" }).check();
      assert.deepEqual((await shown(page)).indicator, ["You *", "Guests", "Anything else"]);
      assert.equal((await shown(page)).count, "Step 1 of 3");
      await page.getByRole("button", { name: "Next" }).click();
      assert.deepEqual(await shown(page), {
        count: "Step 2 of 3",
        step: ["Guests"],
        indicator: ["You", "Guests *", "Anything else"],
        hash: "#step-2",
        back: true,
        next: true,
        submit: false,
      });
      // Focus goes to the new step's heading, so a screen reader starts there.
      assert.equal(await page.evaluate(() => document.activeElement?.id), "p-1");

      // Enter in a field moves on, as Next does, and is checked the same way.
      await page.getByRole("spinbutton", { name: "Guests" }).press("Enter");
      assert.equal(await page.locator("#e-guests_3").textContent(), "Guests is required");
      assert.equal((await shown(page)).hash, "#step-2");
      await page.getByRole("spinbutton", { name: "Guests" }).fill("2");
      await page.getByRole("spinbutton", { name: "Guests" }).press("Enter");
      const last = {
        count: "Step 3 of 3",
        step: ["Anything else"],
        indicator: ["You", "Guests", "Anything else *"],
        hash: "#step-3",
        back: true,
        next: false,
        submit: true,
      };
      assert.deepEqual(await shown(page), last);
      await page.screenshot({ path: screenshot(`hosted-page-step-3-${viewport.name}.png`) });

      // The browser's Back and Forward move between the steps.
      await page.goBack();
      assert.equal((await shown(page)).count, "Step 2 of 3");
      await page.goBack();
      assert.equal((await shown(page)).count, "Step 1 of 3");
      await page.goForward();
      assert.equal((await shown(page)).count, "Step 2 of 3");
      await page.getByRole("button", { name: "Back" }).click();
      assert.deepEqual(await shown(page), {
        ...first,
        count: "Step 1 of 3",
        indicator: ["You *", "Guests", "Anything else"],
        hash: "#step-1",
      });

      // A condition that hides every field of a page hides the page: two steps now.
      await page.getByRole("radio", { name: "no" }).check();
      assert.deepEqual((await shown(page)).indicator, ["You *", "Anything else"]);
      assert.equal((await shown(page)).count, "Step 1 of 2");
      await page.getByRole("button", { name: "Next" }).click();
      assert.deepEqual(await shown(page), {
        ...last,
        count: "Step 2 of 2",
        indicator: ["You", "Anything else *"],
      });
      await page.getByRole("textbox", { name: "Note" }).fill("See you there.");
      await page.screenshot({ path: screenshot(`hosted-page-step-skipped-${viewport.name}.png`) });
      assert.deepEqual(posts, []);
      await page.getByRole("button", { name: "Submit" }).click();
      await page.locator("#thanks").waitFor();

      // One post, at the end, with the values of every step but the hidden one.
      assert.deepEqual(posts, [`/api/form/${formId}/submission`]);
      const listed = await s.submissions(formId);
      assert.deepEqual(listed.results[0].form_fields, [
        { unique_system_name: "name_1", submitted_value: "Ada" },
        { unique_system_name: "coming_2", submitted_value: "no" },
        { unique_system_name: "note_5", submitted_value: "See you there." },
      ]);
      assert.deepEqual(s.strays, []);
    });
  }

  it("opens at the step its address names, and brings back the step of a field S2 refused", async () => {
    const formId = await createForm();
    const page = await s.openPage();
    // A hidden page named by the address: the nearest shown one before it.
    await page.goto(`${s.env.base}/f/${formId}#step-2`);
    assert.equal((await shown(page)).count, "Step 1 of 2");
    await page.goto(`${s.env.base}/f/${formId}#step-3`);
    await page.getByRole("textbox", { name: "Note" }).waitFor();
    assert.equal((await shown(page)).count, "Step 2 of 2");
    // Nothing was checked on the way: S2 refuses the post, and its issue's step comes back.
    await page.getByRole("button", { name: "Submit" }).click();
    await page.locator("#e-name_1:not([hidden])").waitFor();
    assert.equal(await page.locator("#e-name_1").textContent(), "Name is required");
    assert.equal((await shown(page)).count, "Step 1 of 2");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "f-name_1");
    // The summary's link reaches a field on another step.
    await page.goBack();
    assert.equal((await shown(page)).count, "Step 2 of 2");
    await page.locator("#error-links a", { hasText: "Name is required" }).click();
    assert.equal((await shown(page)).count, "Step 1 of 2");
    assert.equal(await page.evaluate(() => document.activeElement?.id), "f-name_1");
    await page.keyboard.type("Ada");
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("button", { name: "Submit" }).click();
    await page.locator("#thanks").waitFor();
    assert.equal((await s.submissions(formId)).results.length, 1);
  });

  it("draws a `classicsingle` form's pages one after another, with no steps", async () => {
    const formId = await createForm("classicsingle");
    const page = await (await fetch(`${s.env.base}/f/${formId}`)).text();
    // The markup, without the inline script (which knows of steps).
    const html = page.replace(/<script[\s\S]*?<\/script>/g, "");
    assert.doesNotMatch(html, /class="step"|class="steps"|id="step-next"/);
    assert.match(html, /<section aria-labelledby="p-1">\n<h2 id="p-1">Guests<\/h2>/);
    assert.match(html, /<button type="submit">Submit<\/button>/);
  });
});
