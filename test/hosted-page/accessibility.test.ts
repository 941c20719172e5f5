import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { assertAccessible } from "./accessibility.ts";
import { createHostedForm, hostedFields, settingsPath } from "./fixture.ts";
import { browserSession, screenshot, viewports } from "./session.ts";

/**
 * What each control of each step is called by assistive technology, by its role, and its id;
 * and the tab order of the step from the top (a date's day, month, year and calendar button
 * are stops of one control).
 */
const stepsOfForm = [
  {
    named: [
      ["textbox", "Name", "f-name_1"],
      ["textbox", "About you", "f-about_2"],
      ["textbox", "E-mail", "f-email_3"],
      ["spinbutton", "Age", "f-age_4"],
      ["button", "Next", "step-next"],
    ],
    order: ["f-name_1", "f-about_2", "f-email_3", "f-age_4", "f-born_5", "step-next"],
  },
  {
    named: [
      ["spinbutton", "Tickets", "f-tickets_12"],
      ["status", "Total (NZD)", "f-total_13"],
      ["button", "Back", "step-back"],
    ],
    order: ["f-tickets_12", "step-back", "step-next"],
  },
  {
    named: [
      ["combobox", "Size", "f-size_6"],
      ["combobox", "City", "f-city_7"],
      ["radiogroup", "Tone", null],
      ["radio", "warm", "f-tone_8-0"],
      ["group", "Likes (required)", null],
      ["checkbox", "cocoa", "f-likes_9-2"],
      ["button", "CV", "f-cv_10"],
      ["button", "Submit", null],
    ],
    order: [
      "f-size_6",
      "f-city_7",
      "f-tone_8-0",
      "f-likes_9-0",
      "f-likes_9-1",
      "f-likes_9-2",
      "f-cv_10",
      "step-back",
      "button",
    ],
  },
] as const;

/** The focused element: its id, else its tag's name ("button", "body"). */
const focused = (page: Page) =>
  page.evaluate(() => {
    const element = document.activeElement;
    return element?.id || element?.tagName.toLowerCase() || "";
  });

/** A selector of what {@link focused} answered. */
const selector = (id: string) => (id === "button" ? "button[type=submit]" : `#${id}`);

/** How the element `focused` named is outlined now: its outline and box shadow. */
const ring = (page: Page, id: string) =>
  page.evaluate((selector) => {
    const style = getComputedStyle(document.querySelector(selector) as HTMLElement);
    return `${style.outlineStyle} ${style.outlineWidth} ${style.outlineColor} | ${style.boxShadow}`;
  }, selector(id));

describe("hosted form page in Chromium: accessible (WCAG 2.1 AA)", { timeout: 120_000 }, () => {
  const s = browserSession();
  let forms: Promise<Record<string, string>> | undefined;

  /** A one-field form named `name` as alice, with settings `sections`. */
  const smallForm = (name: string, sections: Record<string, unknown>) =>
    s.createForm(name, [{ unique_system_name: "name_1", type: "text", label: "Name" }], sections);

  /**
   * The forms of every state, made once: every field type of docs/design.md §5 on three
   * pages, with a calculated total and a guest name shown and required by a condition; and
   * a form closed by date, one sold out, one disabled and one that needs sign-in.
   */
  async function createForms(): Promise<Record<string, string>> {
    const list = await s.env.call("POST", "/api/restricted/datalist", {
      as: s.alice,
      body: { settings: { list_name: "Towns" } },
    });
    const entries = await s.env.call("POST", `/api/restricted/datalist/${list.body.id}/entry`, {
      as: s.alice,
      body: [{ entry_value: "Auckland" }, { entry_value: "Wellington" }],
    });
    assert.equal(entries.status, 200);
    const fields = hostedFields(list.body.id);
    const { formId } = await createHostedForm(s.env.call, s.alice, {}, [
      { title: "About you", fields: fields.slice(0, 5) },
      {
        title: "Tickets",
        fields: [
          { unique_system_name: "tickets_12", type: "number", label: "Tickets", min: 1 },
          { unique_system_name: "total_13", type: "number", label: "Total (NZD)" },
          { unique_system_name: "guest_14", type: "text", label: "Guest name" },
        ],
      },
      { title: "Preferences and files", fields: fields.slice(5) },
    ]);
    const rules = {
      calculatedfieldsettings: {
        fields: [
          { unique_system_name: "total_13", expression: { "*": [{ var: "tickets_12" }, 25] } },
        ],
      },
      conditionallogicsettings: {
        rules: ["show", "require"].map((action) => ({
          fields: ["guest_14"],
          action,
          when: { ">": [{ var: "tickets_12" }, 1] },
        })),
      },
    };
    for (const [section, body] of Object.entries(rules)) {
      const saved = await s.env.call("POST", settingsPath(formId, section), { as: s.alice, body });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    }
    const soldOut = await smallForm("Full", {
      quantitylimitsettings: { max_total_submissions: 1 },
    });
    const first = await s.env.call("POST", `/api/form/${soldOut}/submission`, {
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "First" }] },
    });
    assert.equal(first.status, 200);
    return {
      full: formId,
      "closed-by-date": await smallForm("Past", {
        quantitylimitsettings: { closes_at_utc: "2001-02-03T04:05:06Z" },
      }),
      "sold-out": soldOut,
      disabled: await smallForm("Off", { generalsettings: { is_disabled: true } }),
      "login-required": await smallForm("Members", {
        securitysettings: { requires_login: true },
      }),
      "not-found": "0190f4a6-0000-7000-8000-000000000000",
    };
  }

  async function open(viewport: (typeof viewports)[number], formId: string) {
    const page = await s.openPage();
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.goto(`${s.env.base}/f/${formId}`);
    return page;
  }

  it("fails a page with a serious violation, naming its rule, place and help", async () => {
    const page = await s.openPage();
    await page.setContent('<html lang="en"><title>T</title><main><input id="bare"></main>');
    await assert.rejects(assertAccessible(page, "bare input"), (error: Error) => {
      assert.match(error.message, /^bare input: axe found serious or critical violations:\n/);
      assert.match(error.message, /\nlabel \(critical\) at #bare: Form elements must have labels/);
      return true;
    });
    await page.context().close();
  });

  for (const viewport of viewports) {
    it(`names every control, shows focus, ties and announces errors, moves focus to the first (${viewport.name})`, async () => {
      forms ??= createForms();
      const { full } = await forms;
      const page = await open(viewport, full ?? "");
      // Each step: every control named, the tab order, a focus ring at every stop.
      for (const [index, step] of stepsOfForm.entries()) {
        const label = `step ${index + 1}, ${viewport.name}`;
        await assertAccessible(page, label);
        for (const [role, name, id] of step.named) {
          const control = page.getByRole(role, { name, exact: true });
          assert.equal(await control.count(), 1, `${role} "${name}", ${label}`);
          if (id) assert.equal(await control.getAttribute("id"), id, `${role} "${name}"`);
        }
        // Every control's name comes from a <label for> or its group's <legend>.
        const unlabelled = await page.evaluate(() =>
          [...document.querySelectorAll<HTMLInputElement>("input, select, textarea, output")]
            .filter((control) => control.type !== "hidden" && control.labels?.length !== 1)
            .map((control) => control.id),
        );
        assert.deepEqual(unlabelled, []);
        const order: string[] = [];
        const rings = new Map<string, string>();
        const last = step.order.at(-1);
        await page.locator("h1").click();
        while (order.at(-1) !== last && order.length < 40) {
          await page.keyboard.press("Tab");
          const id = await focused(page);
          if (order.at(-1) !== id) order.push(id);
          const shown = await ring(page, id);
          assert.match(shown, /^solid 3px rgb\(9, 105, 218\)/, `${id}, stop ${order.length}`);
          rings.set(id, shown);
        }
        assert.deepEqual(order, step.order, label);
        await page.locator("h1").click();
        for (const id of order) {
          const unfocused = await ring(page, id);
          assert.notEqual(rings.get(id), unfocused, `${id} looks the same focused`);
        }
        if (index === 0) await errorsOfFirstStep(page);
        await page.screenshot({
          path: screenshot(`hosted-page-a11y-step-${index + 1}-${viewport.name}.png`),
          fullPage: true,
        });
        if (index === 1) await fixedLive(page);
        if (last !== "button") await page.getByRole("button", { name: "Next" }).click();
      }
      assert.deepEqual(
        s.strays.filter((stray) => !stray.includes("400 (Bad Request)")),
        [],
      );
      await page.context().close();
    });

    /**
     * Next on an empty first step: every error tied to its control, the summary announced,
     * focus on the first field in error; then fixed live, each change said once.
     */
    async function errorsOfFirstStep(page: Page) {
      await page.getByRole("button", { name: "Next" }).focus();
      await page.keyboard.press("Enter");
      await page.locator("#e-name_1:not([hidden])").waitFor();
      assert.equal(await focused(page), "f-name_1");
      const alert = page.getByRole("alert");
      assert.equal(await alert.textContent(), "Please correct the fields marked below.");
      const ties = await page.evaluate(() =>
        [...document.querySelectorAll<HTMLElement>(".error:not([hidden])")].map((error) => {
          const field = error.closest(".field") as HTMLElement;
          const controls = [...field.querySelectorAll("input, select, textarea")];
          return {
            error: error.textContent,
            tied: controls.every((c) =>
              c.getAttribute("aria-describedby")?.split(" ").includes(error.id),
            ),
            invalid: controls.every((c) => c.getAttribute("aria-invalid") === "true"),
          };
        }),
      );
      assert.deepEqual(ties, [
        { error: "Name is required", tied: true, invalid: true },
        { error: "E-mail is required", tied: true, invalid: true },
      ]);
      // The summary's links come just before the fields, each with a focus ring.
      await page.keyboard.press("Shift+Tab");
      const link = await page.evaluate(() => {
        const element = document.activeElement as HTMLElement;
        const style = getComputedStyle(element);
        return `${element.textContent} ${style.outlineStyle} ${style.outlineWidth}`;
      });
      assert.equal(link, "E-mail is required solid 3px");
      await page.keyboard.press("Tab");
      assert.equal(await focused(page), "f-name_1");
      await assertAccessible(page, "with errors");
      await page.screenshot({ path: screenshot("hosted-page-a11y-errors.png"), fullPage: true });

      // Fixed live: a change of an error is said once in the polite region, a keystroke
      // that leaves it as it was says nothing again.
      const news = page.locator("#form-news");
      assert.equal(await news.getAttribute("aria-live"), "polite");
      await page.evaluate(() => {
        const region = document.getElementById("form-news") as HTMLElement;
        const said: string[] = [];
        (window as unknown as { said: string[] }).said = said;
        new MutationObserver(() => said.push(region.textContent ?? "")).observe(region, {
          childList: true,
          characterData: true,
          subtree: true,
        });
      });
      const said = () => page.evaluate(() => (window as unknown as { said: string[] }).said);
      await page.keyboard.type("Ada");
      const email = page.getByRole("textbox", { name: "E-mail", exact: true });
      await email.focus();
      await page.keyboard.type("ada");
      assert.equal(
        await page.locator("#e-email_3").textContent(),
        "E-mail must be an e-mail address",
      );
      await page.keyboard.type("@ex");
      assert.deepEqual(await said(), ["E-mail must be an e-mail address"]);
      await page.keyboard.type("ample.com");
      assert.equal(await page.locator("#e-email_3").isHidden(), true);
      assert.deepEqual(await said(), ["E-mail must be an e-mail address", ""]);
    }

    /** On the second step: the total computed live, a required guest said once when left. */
    async function fixedLive(page: Page) {
      const said = () => page.evaluate(() => (window as unknown as { said: string[] }).said);
      await page.getByRole("spinbutton", { name: "Tickets" }).fill("3");
      assert.equal(await page.locator("#f-total_13").textContent(), "75");
      const guest = page.getByRole("textbox", { name: "Guest name", exact: true });
      await guest.focus();
      await guest.blur();
      assert.equal(await page.locator("#e-guest_14").textContent(), "Guest name is required");
      assert.deepEqual(await said(), [
        "E-mail must be an e-mail address",
        "",
        "Guest name is required",
      ]);
      await assertAccessible(page, "fixed live");
      await page.getByRole("textbox", { name: "Guest name", exact: true }).fill("Charles");
    }

    it(`can be filled in and submitted from the keyboard alone (${viewport.name})`, async () => {
      forms ??= createForms();
      const { full } = await forms;
      const page = await open(viewport, full ?? "");
      const keys = page.keyboard;
      await page.locator("h1").click();
      await keys.press("Tab");
      await keys.type("Ada Lovelace");
      await keys.press("Tab");
      await keys.type("Mathematician.");
      await keys.press("Enter");
      await keys.type("Writes programs.");
      await keys.press("Tab");
      await keys.type("ada@example.com");
      await keys.press("Tab");
      await keys.type("36");
      await keys.press("Tab");
      await keys.type("12101815");
      // Past the date's calendar button, to Next: the next step's heading takes focus.
      await keys.press("Tab");
      await keys.press("Tab");
      assert.equal(await focused(page), "step-next");
      await keys.press("Enter");
      assert.equal(await focused(page), "p-1");
      await keys.press("Tab");
      assert.equal(await focused(page), "f-tickets_12");
      await keys.type("2");
      await keys.press("Tab");
      assert.equal(await focused(page), "f-guest_14");
      await keys.type("Charles");
      await keys.press("Tab");
      await keys.press("Tab");
      assert.equal(await focused(page), "step-next");
      await keys.press("Space");
      assert.equal(await focused(page), "p-2");
      await keys.press("Tab");
      await keys.type("M");
      await keys.press("Tab");
      await keys.press("ArrowDown");
      await keys.press("ArrowDown");
      await keys.press("Tab");
      assert.equal(await focused(page), "f-tone_8-0");
      await keys.press("ArrowDown");
      assert.equal(await focused(page), "f-tone_8-1");
      await keys.press("Tab");
      await keys.press("Space");
      await keys.press("Tab");
      await keys.press("Tab");
      await keys.press("Space");
      await keys.press("Shift+Tab");
      await keys.press("Shift+Tab");
      assert.equal(await focused(page), "f-likes_9-0");
      await keys.press("Tab");
      await keys.press("Tab");
      await keys.press("Tab");
      assert.equal(await focused(page), "f-cv_10");
      await keys.press("Tab");
      await keys.press("Tab");
      assert.equal(await focused(page), "button");
      await keys.press("Enter");
      // The thanks message is a status, as the calculated total's <output> is.
      await page.locator("#thanks").waitFor();
      assert.equal(await focused(page), "thanks");
      await assertAccessible(page, `thanks, ${viewport.name}`);
      const listed = await s.submissions(full ?? "");
      const stored = listed.results.at(-1).form_fields;
      assert.deepEqual(stored, [
        { unique_system_name: "name_1", submitted_value: "Ada Lovelace" },
        { unique_system_name: "about_2", submitted_value: "Mathematician.\nWrites programs." },
        { unique_system_name: "email_3", submitted_value: "ada@example.com" },
        { unique_system_name: "age_4", submitted_value: "36" },
        { unique_system_name: "born_5", submitted_value: "1815-12-10" },
        { unique_system_name: "tickets_12", submitted_value: "2" },
        { unique_system_name: "total_13", submitted_value: "50" },
        { unique_system_name: "guest_14", submitted_value: "Charles" },
        { unique_system_name: "size_6", submitted_value: "M" },
        { unique_system_name: "city_7", submitted_value: "Wellington" },
        { unique_system_name: "tone_8", submitted_value: "cold" },
        { unique_system_name: "likes_9", submitted_value: "tea|cocoa" },
        { unique_system_name: "source_11", submitted_value: "newsletter" },
      ]);
      assert.deepEqual(s.strays, []);
      await page.context().close();
    });

    it(`says why a form cannot be filled in, accessibly (${viewport.name})`, async () => {
      forms ??= createForms();
      const { full, ...closed } = await forms;
      const page = await s.openPage();
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      for (const [state, formId] of Object.entries(closed)) {
        await page.goto(`${s.env.base}/f/${formId}`);
        await assertAccessible(page, `${state}, ${viewport.name}`);
      }
      await page.context().close();
    });
  }
});
