import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Page } from "playwright-core";
import { createHostedForm, settingsPath } from "./fixture.ts";
import { browserSession, screenshot } from "./session.ts";

describe("hosted form page in Chromium: bot protection", { timeout: 120_000 }, () => {
  const s = browserSession();

  /** A form with the challenge and the honeypot on, open in a fresh page. */
  async function protectedForm(): Promise<{ formId: string; page: Page }> {
    const { formId } = await createHostedForm(s.env.call, s.alice);
    const saved = await s.env.call("POST", settingsPath(formId, "securitysettings"), {
      as: s.alice,
      body: { bot_protection: { challenge: true, honeypot: true } },
    });
    assert.equal(saved.status, 200);
    const page = await s.openPage();
    await page.goto(`${s.env.base}/f/${formId}`);
    await page.getByRole("textbox", { name: "Name" }).fill("Ada Lovelace");
    await page.getByRole("textbox", { name: "E-mail" }).fill("ada@example.com");
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("group", { name: "Likes" }).getByRole("checkbox", { name: "tea" }).check();
    return { formId, page };
  }

  it("solves a challenge for each upload and the post, and stores the submission", async () => {
    const { formId, page } = await protectedForm();
    // The honeypot is out of the accessibility tree and the tab order.
    assert.equal(await page.getByRole("textbox", { name: "Website" }).count(), 0);
    assert.equal(await page.locator("#hp-website").getAttribute("tabindex"), "-1");
    await page
      .getByLabel("CV", { exact: true })
      .setInputFiles([
        { name: "cv.txt", mimeType: "text/plain", buffer: Buffer.from("Ada's CV\n") },
      ]);
    await page.locator('.uploads li[data-state="done"]').waitFor();
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByRole("status").waitFor();
    await page.screenshot({ path: screenshot("hosted-page-bot-protection.png") });
    assert.deepEqual(s.strays, []);
    const listed = await s.submissions(formId);
    assert.equal(listed.results.length, 1);
    assert.equal(listed.attachments.length, 1);
  });

  it("thanks a bot that filled the honeypot and stores nothing", async () => {
    const { formId, page } = await protectedForm();
    await page.locator("#hp-website").fill("https://spam.example", { force: true });
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByRole("status").waitFor();
    assert.equal(await page.getByRole("status").textContent(), "Thank you for your submission");
    assert.deepEqual(s.strays, []);
    assert.equal((await s.submissions(formId)).results.length, 0);
  });
});
