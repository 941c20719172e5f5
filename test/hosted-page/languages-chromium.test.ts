import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  assertFits,
  browserSession,
  screenshot,
  shownErrors,
  summaryLinks,
  viewports,
} from "./session.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: true },
  { unique_system_name: "email_2", type: "email", label: "E-Mail", required: true },
  { unique_system_name: "age_3", type: "number", label: "Alter", min: 0, max: 130 },
  {
    unique_system_name: "likes_4",
    type: "checkbox",
    label: "Vorlieben",
    required: true,
    options: ["Tee", "Kaffee"],
  },
  { unique_system_name: "size_5", type: "select", label: "Größe", options: ["S", "M"] },
];

describe("hosted form page in Chromium: in the form's language", { timeout: 120_000 }, () => {
  const s = browserSession();

  /** A one-page form of `fields` in German, as alice, with settings `sections`. */
  const germanForm = (name: string, sections: Record<string, unknown>) =>
    s.createForm(name, fields, { generalsettings: { language: "de" }, ...sections });

  const post = s.post;

  for (const viewport of viewports) {
    it(`shows German words live, in the summary and when closed (${viewport.name})`, async () => {
      const formId = await germanForm("Anmeldung", {
        quantitylimitsettings: {
          inventory: [{ unique_system_name: "size_5", option: "S", quantity: 1 }],
        },
      });
      const first = { name_1: "Ada", email_2: "ada@example.com", likes_4: "Tee", size_5: "S" };
      assert.equal((await post(formId, first)).status, 200);
      // S2 itself still answers in English.
      const refused = await post(formId, { email_2: "x" });
      assert.deepEqual(refused.body.issues, [
        { path: "name_1", message: "is required" },
        { path: "email_2", message: "must be an e-mail address" },
        { path: "likes_4", message: "is required" },
      ]);

      // Chromium asks for English (Accept-Language: en-US): the form's setting wins.
      const page = await s.openPage();
      await page.setViewportSize({ width: viewport.width, height: viewport.height });
      await page.goto(`${s.env.base}/f/${formId}`);
      assert.equal(await page.getAttribute("html", "lang"), "de");
      const submit = page.getByRole("button", { name: "Absenden" });
      const sizes = page.locator("#f-size_5 option");
      assert.deepEqual(await sizes.allTextContents(), ["Bitte wählen…", "S (ausverkauft)", "M"]);
      assert.equal(
        await page.getByRole("group", { name: "Vorlieben (Pflichtfeld)", exact: true }).count(),
        1,
      );

      await page.getByRole("textbox", { name: "E-Mail" }).fill("x");
      await submit.click();
      await page.locator("#e-name_1:not([hidden])").waitFor();
      const errors = [
        "Name: Bitte füllen Sie dieses Feld aus.",
        "E-Mail: Bitte geben Sie eine gültige E-Mail-Adresse ein.",
        "Vorlieben: Bitte füllen Sie dieses Feld aus.",
      ];
      assert.deepEqual(await shownErrors(page), errors);
      assert.deepEqual(await summaryLinks(page), errors);
      assert.equal(
        await page.getByRole("alert").textContent(),
        "Bitte korrigieren Sie die unten markierten Felder.",
      );
      assert.equal(await page.getByRole("list", { name: "Zu korrigierende Felder" }).count(), 1);

      // Live, as the values change and a field is left.
      const age = page.getByRole("spinbutton", { name: "Alter" });
      await age.fill("131");
      await age.blur();
      assert.equal(
        await page.locator("#e-age_3").textContent(),
        "Alter: Der Wert darf höchstens 130 betragen.",
      );
      await page.getByRole("textbox", { name: "E-Mail" }).fill("ada@");
      assert.equal(await page.locator("#e-email_2").textContent(), errors[1]);
      await page.getByRole("textbox", { name: "Name" }).pressSequentially("G");
      assert.deepEqual(await summaryLinks(page), [
        errors[1],
        "Alter: Der Wert darf höchstens 130 betragen.",
        errors[2],
      ]);
      await assertFits(page, viewport.width);
      await page.screenshot({
        path: screenshot(`hosted-page-german-errors-${viewport.name}.png`),
        fullPage: true,
      });

      await page.getByRole("textbox", { name: "E-Mail" }).fill("grace@example.com");
      await age.fill("36");
      await page.getByRole("checkbox", { name: "Kaffee" }).check();
      assert.deepEqual(await shownErrors(page), []);
      await submit.click();
      const thanks = page.getByRole("status");
      await thanks.waitFor();
      assert.equal(await thanks.textContent(), "Vielen Dank für Ihre Einsendung.");
      assert.deepEqual(s.strays, [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)",
      ]);
      await page.context().close();

      // A closed form says so in German when the page loads.
      const closedId = await germanForm("Sommerfest", {
        quantitylimitsettings: { closes_at_utc: "2001-02-03T04:05:06Z" },
      });
      const closed = await s.openPage();
      await closed.setViewportSize({ width: viewport.width, height: viewport.height });
      await closed.goto(`${s.env.base}/f/${closedId}`);
      assert.equal(await closed.getAttribute("html", "lang"), "de");
      assert.equal(await closed.locator("h1").textContent(), "Sommerfest");
      assert.equal(
        await closed.locator("#closed-notice").textContent(),
        "Dieses Formular nimmt keine neuen Einsendungen mehr an.",
      );
      assert.equal(await closed.locator("form, script").count(), 0);
      assert.equal(
        (await post(closedId, first)).body.message,
        "This form is closed to new submissions",
      );
      await assertFits(closed, viewport.width);
      await closed.screenshot({
        path: screenshot(`hosted-page-german-closed-${viewport.name}.png`),
        fullPage: true,
      });
      await closed.context().close();
    });
  }
});
