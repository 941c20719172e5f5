import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createHostedForm } from "./fixture.ts";
import { browserSession, screenshot } from "./session.ts";

/** Bytes that are not text, for the uploaded picture. */
const picture = Uint8Array.from({ length: 60_000 }, (_, n) => (n * 7919) % 256);

describe("hosted form page in Chromium: filling in", {
  timeout: 120_000,
}, () => {
  const s = browserSession();

  it("fills every field type, uploads two files with progress, submits and stores it all", async () => {
    const thanks = { thanks_behaviour_message: "Thanks, Ada: we will be in touch." };
    const { formId } = await createHostedForm(s.env.call, s.alice, thanks);
    const page = await s.openPage();
    await page.goto(`${s.env.base}/f/${formId}`);
    assert.equal(await page.title(), "Job application");
    await page.getByRole("textbox", { name: "Name" }).fill("Ada Lovelace");
    await page.getByRole("textbox", { name: "About you" }).fill("Mathematician.\nWrites programs.");
    await page.getByRole("textbox", { name: "E-mail" }).fill("ada@example.com");
    await page.getByRole("spinbutton", { name: "Age" }).fill("36");
    await page.getByLabel("Date of birth", { exact: true }).fill("1815-12-10");
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("combobox", { name: "Size" }).selectOption("M");
    await page.getByRole("combobox", { name: "City" }).selectOption("Wellington");
    await page
      .getByRole("radiogroup", { name: "Tone" })
      .getByRole("radio", { name: "cold" })
      .check();
    await page.getByRole("group", { name: "Likes" }).getByRole("checkbox", { name: "tea" }).check();
    await page
      .getByRole("group", { name: "Likes" })
      .getByRole("checkbox", { name: "cocoa" })
      .check();
    await page.getByLabel("CV", { exact: true }).setInputFiles([
      { name: "cv.txt", mimeType: "text/plain", buffer: Buffer.from("Ada's CV\n") },
      { name: "photo.png", mimeType: "image/png", buffer: Buffer.from(picture) },
    ]);
    const done = page.locator('.uploads li[data-state="done"]');
    await done.nth(1).waitFor();
    assert.deepEqual(await done.locator("span").allTextContents(), ["cv.txt", "photo.png"]);
    const bars = await done.locator("progress").all();
    for (const bar of bars) assert.equal(await bar.getAttribute("value"), "100");
    await page.screenshot({
      path: screenshot("hosted-page-filled.png"),
      fullPage: true,
    });

    await page.getByRole("button", { name: "Submit" }).click();
    const status = page.getByRole("status");
    await status.waitFor();
    assert.equal(await status.textContent(), "Thanks, Ada: we will be in touch.");
    assert.equal(await page.locator("form").isHidden(), true);
    assert.equal(await page.evaluate(() => document.activeElement?.id), "thanks");
    await page.screenshot({ path: screenshot("hosted-page-thanks.png") });
    assert.deepEqual(s.strays, []);

    const listed = await s.submissions(formId);
    assert.equal(listed.results.length, 1);
    const stored = listed.results[0];
    const ids = new Map<string, string>(
      listed.attachments.map((a: { id: string; unsafe_original_filename: string }) => [
        a.unsafe_original_filename,
        a.id,
      ]),
    );
    assert.deepEqual(stored.form_fields, [
      { unique_system_name: "name_1", submitted_value: "Ada Lovelace" },
      { unique_system_name: "about_2", submitted_value: "Mathematician.\nWrites programs." },
      { unique_system_name: "email_3", submitted_value: "ada@example.com" },
      { unique_system_name: "age_4", submitted_value: "36" },
      { unique_system_name: "born_5", submitted_value: "1815-12-10" },
      { unique_system_name: "size_6", submitted_value: "M" },
      { unique_system_name: "city_7", submitted_value: "Wellington" },
      { unique_system_name: "tone_8", submitted_value: "cold" },
      { unique_system_name: "likes_9", submitted_value: "tea|cocoa" },
      {
        unique_system_name: "cv_10",
        submitted_value: `${ids.get("cv.txt")}|${ids.get("photo.png")}`,
      },
      { unique_system_name: "source_11", submitted_value: "newsletter" },
    ]);
    assert.equal(stored.is_draft_submission, false);
    assert.equal(stored.created_by_device.client_ip_address, "127.0.0.1");

    const read = await s.env.call("GET", `/api/restricted/form/${formId}/submission/${stored.id}`, {
      as: s.alice,
    });
    assert.equal(read.status, 200);
    assert.equal(read.body.attachment_details.length, 2);
    for (const [name, bytes] of [
      ["cv.txt", new TextEncoder().encode("Ada's CV\n")],
      ["photo.png", picture],
    ] as const) {
      const link = await s.env.call(
        "GET",
        `/api/restricted/form/${formId}/submissionattachment/${ids.get(name)}`,
        { as: s.alice },
      );
      assert.ok(link.body.id.startsWith(`${s.env.base}/storage/${formId}/`), link.body.id);
      const file = await fetch(link.body.id);
      assert.equal(file.status, 200);
      assert.deepEqual(new Uint8Array(await file.arrayBuffer()), bytes);
    }
  });

  it("shows the submission's validation issues beside their fields, then accepts the fix", async () => {
    const { formId } = await createHostedForm(s.env.call, s.alice);
    const page = await s.openPage();
    await page.goto(`${s.env.base}/f/${formId}`);
    await page.getByRole("textbox", { name: "E-mail" }).fill("not an address");
    await page.getByRole("spinbutton", { name: "Age" }).fill("131");
    // Straight to the last step, as the browser's Forward would go: S2 is the authority, and
    // its issues on the first step bring that step back.
    await page.evaluate(() => {
      location.hash = "#step-2";
    });
    await page.getByLabel("CV", { exact: true }).setInputFiles({
      name: "huge.txt",
      mimeType: "text/plain",
      buffer: Buffer.alloc(100_001, 97),
    });
    const cvError = page.locator("#e-cv_10");
    assert.equal(await cvError.textContent(), "huge.txt is larger than allowed.");
    await page.getByLabel("CV", { exact: true }).setInputFiles([]);
    await page.getByRole("button", { name: "Submit" }).click();
    await page.locator("#e-name_1").waitFor();
    const errors = await page.locator(".error:not([hidden])").allTextContents();
    assert.deepEqual(errors, [
      "Name is required",
      "E-mail must be an e-mail address",
      "Age must be at most 130",
      "Likes is required",
    ]);
    assert.equal(
      await page.getByRole("alert").textContent(),
      "Please correct the fields marked below.",
    );
    assert.equal(
      await page.getByRole("textbox", { name: "Name" }).getAttribute("aria-invalid"),
      "true",
    );
    assert.equal(await page.evaluate(() => document.activeElement?.id), "f-name_1");
    assert.equal(await page.evaluate(() => location.hash), "#step-1");
    await page.screenshot({
      path: screenshot("hosted-page-errors.png"),
      fullPage: true,
    });
    assert.equal((await s.submissions(formId)).results.length, 0);

    await page.getByRole("textbox", { name: "Name" }).fill("Ada");
    await page.getByRole("textbox", { name: "E-mail" }).fill("ada@example.com");
    await page.getByRole("spinbutton", { name: "Age" }).fill("130");
    await page.getByRole("button", { name: "Next" }).click();
    await page.getByRole("checkbox", { name: "tea" }).check();
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByRole("status").waitFor();
    assert.equal(await page.getByRole("status").textContent(), "Thank you for your submission");
    assert.equal((await s.submissions(formId)).results.length, 1);
    // Chromium logs the refused submission itself; nothing else went wrong or off the service.
    assert.deepEqual(s.strays, [
      "Failed to load resource: the server responded with a status of 400 (Bad Request)",
    ]);
  });
});
