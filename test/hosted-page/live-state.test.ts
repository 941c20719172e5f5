import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createHostedForm } from "./fixture.ts";
import {
  assertFits,
  browserSession,
  screenshot,
  shownErrors,
  summaryLinks,
  viewports,
} from "./session.ts";

describe("hosted form page in Chromium: live validation and state", {
  timeout: 240_000,
}, () => {
  const s = browserSession();

  const createForm = s.createForm;

  async function openAt(viewport: (typeof viewports)[number], path: string) {
    const page = await s.openPage();
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    await page.goto(`${s.env.base}${path}`);
    return page;
  }

  const post = s.post;

  for (const viewport of viewports) {
    it(`says a form is closed, sold out, disabled or needs sign-in when the page loads, with no form (${viewport.name})`, async () => {
      const fields = [{ unique_system_name: "name_1", type: "text", label: "Name" }];
      const pastDate = await createForm("Past", fields, {
        quantitylimitsettings: { closes_at_utc: "2001-02-03T04:05:06Z" },
      });
      const soldOut = await createForm("Full", fields, {
        quantitylimitsettings: { max_total_submissions: 1 },
      });
      assert.equal((await post(soldOut, { name_1: "First" })).status, 200);
      const disabled = await createForm("Off", fields, { generalsettings: { is_disabled: true } });
      const login = await createForm("Members", fields, {
        securitysettings: { requires_login: true },
      });
      const cases = [
        { state: "closed-by-date", formId: pastDate, status: 200, h1: "Past" },
        { state: "sold-out", formId: soldOut, status: 200, h1: "Full" },
        { state: "disabled", formId: disabled, status: 403, h1: "This form is closed" },
        { state: "login-required", formId: login, status: 401, h1: "Sign-in required" },
      ];
      for (const { state, formId, status, h1 } of cases) {
        const page = await s.openPage();
        await page.setViewportSize({ width: viewport.width, height: viewport.height });
        const answer = await page.goto(`${s.env.base}/f/${formId}`);
        assert.equal(answer?.status(), status, state);
        assert.equal(await page.locator("h1").textContent(), h1, state);
        // S2's own answer to a post now, which the page says in the same words.
        const refused = await post(formId, { name_1: "Late" });
        const notice = (await page.locator("main p").textContent()) ?? "";
        if (status === 200) {
          assert.equal(refused.status, 403, state);
          assert.equal(notice, `${refused.body.message}.`, state);
        } else {
          assert.equal(refused.status, status, state);
        }
        assert.equal(await page.locator("form").count(), 0, state);
        assert.equal(await page.locator("input, select, textarea, button, output").count(), 0);
        assert.equal(await page.locator("script").count(), 0, state);
        // Nothing a post would not tell: not the date it closed, nor the form's fields.
        const html = await page.content();
        assert.ok(!html.includes("2001") && !html.includes("name_1"), state);
        await assertFits(page, viewport.width);
        await page.screenshot({
          path: screenshot(`hosted-page-${state}-${viewport.name}.png`),
          fullPage: true,
        });
        await page.context().close();
      }
      assert.equal(
        (await post(pastDate, {})).body.message,
        "This form is closed to new submissions",
      );
      assert.equal(
        (await post(soldOut, { name_1: "Second" })).body.message,
        "This form has received all the submissions it takes",
      );
      // F5 answers a closed form as before: the page's judgement is not part of its answer.
      const read = await s.env.call("GET", `/api/form/${pastDate}`);
      assert.equal(read.status, 200);
      assert.deepEqual(Object.keys(read.body).sort(), [
        "form_configuration",
        "form_definition",
        "id",
      ]);
    });

    it(`marks a field required while a condition requires it (${viewport.name})`, async () => {
      const formId = await createForm(
        "Party",
        [
          { unique_system_name: "guests_1", type: "number", label: "Guests" },
          { unique_system_name: "guest_2", type: "text", label: "Guest name" },
          {
            unique_system_name: "meal_3",
            type: "radio",
            label: "Guest meal",
            options: ["fish", "veg"],
          },
          {
            unique_system_name: "needs_4",
            type: "checkbox",
            label: "Guest needs",
            options: ["ramp", "seat"],
          },
        ],
        {
          conditionallogicsettings: {
            rules: [
              {
                fields: ["guest_2", "meal_3", "needs_4"],
                action: "require",
                when: { ">": [{ var: "guests_1" }, 1] },
              },
            ],
          },
        },
      );
      const page = await openAt(viewport, `/f/${formId}`);
      const guestName = page.getByRole("textbox", { name: "Guest name" });
      const meal = page.getByRole("radiogroup", { name: "Guest meal" });
      const needs = page.getByRole("group", { name: "Guest needs" });
      const marks = () => page.locator(".field .mark").count();
      const expectRequired = async (required: boolean) => {
        assert.equal(await marks(), required ? 3 : 0);
        assert.equal(await guestName.getAttribute("aria-required"), required ? "true" : null);
        assert.equal(await guestName.evaluate((e) => (e as HTMLInputElement).required), required);
        assert.equal(await meal.getAttribute("aria-required"), required ? "true" : null);
        // A checkbox group says it in its name, as the page draws it for a required one.
        const spoken = await needs.locator("legend .sr-only").count();
        assert.equal(spoken, required ? 1 : 0);
      };
      await expectRequired(false);
      await page.getByRole("spinbutton", { name: "Guests" }).fill("2");
      await expectRequired(true);
      assert.equal(await page.locator('label[for="f-guest_2"] .mark').textContent(), "*");
      await assertFits(page, viewport.width);
      await page.screenshot({
        path: screenshot(`hosted-page-required-by-rule-${viewport.name}.png`),
        fullPage: true,
      });
      // S2 agrees: the field the page marks is the one it refuses empty.
      await page.getByRole("button", { name: "Submit" }).click();
      await page.locator("#e-guest_2:not([hidden])").waitFor();
      assert.deepEqual(await shownErrors(page), [
        "Guest name is required",
        "Guest meal is required",
        "Guest needs is required",
      ]);
      await page.getByRole("spinbutton", { name: "Guests" }).fill("1");
      await expectRequired(false);
      // No longer required: its "is required" goes at once.
      assert.deepEqual(await shownErrors(page), []);
      assert.equal(await page.locator("#form-summary").isHidden(), true);
      await page.getByRole("button", { name: "Submit" }).click();
      await page.locator("#thanks").waitFor();
      assert.deepEqual(s.strays, [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)",
      ]);
    });

    it(`clears and updates each error as its value changes and on blur, with a summary of links (${viewport.name})`, async () => {
      // Every field on one page: the steps of a form of several are steps.test.ts's subject.
      const { formId } = await createHostedForm(s.env.call, s.alice, {}, (fields) => [{ fields }]);
      const page = await openAt(viewport, `/f/${formId}`);
      const name = page.getByRole("textbox", { name: "Name" });
      const email = page.getByRole("textbox", { name: "E-mail" });
      const age = page.getByRole("spinbutton", { name: "Age" });
      await email.fill("not an address");
      await page.getByRole("button", { name: "Submit" }).click();
      await page.locator("#e-name_1:not([hidden])").waitFor();
      const first = ["Name is required", "E-mail must be an e-mail address", "Likes is required"];
      assert.deepEqual(await shownErrors(page), first);
      assert.deepEqual(await summaryLinks(page), first);
      assert.equal(
        await page.getByRole("alert").textContent(),
        "Please correct the fields marked below.",
      );
      await assertFits(page, viewport.width);
      await page.screenshot({
        path: screenshot(`hosted-page-summary-${viewport.name}.png`),
        fullPage: true,
      });

      // As soon as the value changes, before the field is left.
      await name.pressSequentially("A");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "f-name_1");
      assert.deepEqual(await summaryLinks(page), first.slice(1));
      assert.equal(await name.getAttribute("aria-invalid"), null);
      // An error changes with the value: still wrong, now for another reason.
      await email.fill("ada@");
      assert.equal(await page.locator("#e-email_3").textContent(), first[1]);
      await email.fill("ada@example.com");
      assert.deepEqual(await summaryLinks(page), ["Likes is required"]);
      // A field left after a failed submit shows what is wrong with it, in S2's words.
      await age.fill("131");
      assert.equal(await page.locator("#e-age_4").isHidden(), true);
      await age.blur();
      assert.equal(await page.locator("#e-age_4").textContent(), "Age must be at most 130");
      await age.fill("-1");
      assert.equal(await page.locator("#e-age_4").textContent(), "Age must be at least 0");
      await age.fill("36");
      assert.equal(await page.locator("#e-age_4").isHidden(), true);
      await name.fill("");
      await name.blur();
      assert.equal(await page.locator("#e-name_1").textContent(), "Name is required");
      assert.deepEqual(await summaryLinks(page), ["Name is required", "Likes is required"]);

      // A summary link moves focus to its field.
      await page.locator("#error-links a", { hasText: "Likes is required" }).click();
      assert.equal(await page.evaluate(() => document.activeElement?.id), "f-likes_9-0");
      await page.keyboard.press("Space");
      assert.deepEqual(await summaryLinks(page), ["Name is required"]);
      await page.locator("#error-links a", { hasText: "Name is required" }).focus();
      await page.keyboard.press("Enter");
      assert.equal(await page.evaluate(() => document.activeElement?.id), "f-name_1");
      await page.keyboard.type("Ada");
      assert.deepEqual(await shownErrors(page), []);
      assert.equal(await page.locator("#form-summary").isHidden(), true);
      await assertFits(page, viewport.width);
      await page.screenshot({
        path: screenshot(`hosted-page-fixed-${viewport.name}.png`),
        fullPage: true,
      });
      await page.getByRole("button", { name: "Submit" }).click();
      await page.locator("#thanks").waitFor();
      const listed = await s.submissions(formId);
      assert.equal(listed.results.length, 1);
      assert.deepEqual(s.strays, [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)",
      ]);
    });

    it(`shows a calculated field read-only, as an <output> (${viewport.name})`, async () => {
      const formId = await createForm(
        "Order",
        [
          { unique_system_name: "qty_1", type: "number", label: "Quantity" },
          { unique_system_name: "price_2", type: "number", label: "Price" },
          { unique_system_name: "total_3", type: "number", label: "Total (NZD)" },
        ],
        {
          calculatedfieldsettings: {
            fields: [
              {
                unique_system_name: "total_3",
                expression: { "*": [{ var: "qty_1" }, { var: "price_2" }] },
              },
            ],
          },
        },
      );
      const page = await openAt(viewport, `/f/${formId}`);
      const total = page.locator("#f-total_3");
      assert.equal(await total.evaluate((e) => e.tagName), "OUTPUT");
      assert.equal(await page.locator('[name="total_3"]:is(input, select, textarea)').count(), 0);
      assert.equal(await page.getByLabel("Total (NZD)").evaluate((e) => e.id), "f-total_3");
      assert.equal(await page.locator(".field .mark").count(), 0);
      await page.getByRole("spinbutton", { name: "Quantity" }).fill("3");
      await page.getByRole("spinbutton", { name: "Price" }).fill("12.5");
      assert.equal(await total.textContent(), "37.5");
      // Tabbing goes past it: nothing there to edit.
      await page.getByRole("spinbutton", { name: "Price" }).focus();
      await page.keyboard.press("Tab");
      assert.equal(await page.evaluate(() => document.activeElement?.tagName), "BUTTON");
      await assertFits(page, viewport.width);
      await page.screenshot({
        path: screenshot(`hosted-page-calculated-${viewport.name}.png`),
        fullPage: true,
      });
      await page.getByRole("button", { name: "Submit" }).click();
      await page.locator("#thanks").waitFor();
      const listed = await s.submissions(formId);
      assert.deepEqual(listed.results[0].form_fields, [
        { unique_system_name: "qty_1", submitted_value: "3" },
        { unique_system_name: "price_2", submitted_value: "12.5" },
        { unique_system_name: "total_3", submitted_value: "37.5" },
      ]);
      assert.deepEqual(s.strays, []);
    });
  }
});
