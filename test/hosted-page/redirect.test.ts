import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, it } from "node:test";
import type { TestUser } from "../helpers.ts";
import { createHostedForm } from "./fixture.ts";
import { startServer } from "./server.ts";
import { browserSession } from "./session.ts";

/**
 * The framing site: a page of another origin, served from loopback for real (Chromium's
 * local-network checks refuse a page it cannot place on the network to frame loopback).
 */
async function serveShop(formUrl: string) {
  const shop = createServer((_, response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(
      `<h1>Shop</h1><iframe title="Form" src="${formUrl}" width="800" height="700"></iframe>`,
    );
  });
  await new Promise<void>((resolve) => shop.listen(0, "127.0.0.1", resolve));
  const { port } = shop.address() as AddressInfo;
  shop.unref();
  return { url: `http://localhost:${port}/`, close: () => shop.close() };
}

describe("hosted form page in Chromium: after submitting", {
  timeout: 120_000,
}, () => {
  const s = browserSession();

  it("follows the redirect with its parameters, in the page or in the page that frames it", async () => {
    for (const parent of [false, true]) {
      const { formId } = await createHostedForm(s.env.call, s.alice, {
        thanks_behaviour: "url_redirect",
        thanks_behaviour_redirect_url: "https://thanks.example/done?from=form",
        thanks_behaviour_redirect_parent_page: parent,
        thanks_behaviour_redirect_url_params: [
          { param_name: "who", param_value_form_field_system_name: "name_1" },
          { param_name: "likes", param_value_form_field_system_name: "likes_9" },
          { param_name: "src", param_value_fixed: "hosted page" },
        ],
      });
      const shop = parent ? await serveShop(`${s.env.base}/f/${formId}`) : null;
      const page = await s.openPage(["thanks.example", ...(shop ? [new URL(shop.url).host] : [])]);
      await page.goto(shop?.url ?? `${s.env.base}/f/${formId}`);
      const form = shop ? page.frameLocator("iframe") : page;
      await form.getByRole("textbox", { name: "Name" }).fill("Ada L");
      await form.getByRole("textbox", { name: "E-mail" }).fill("ada@example.com");
      await form.getByRole("button", { name: "Next" }).click();
      await form.getByRole("checkbox", { name: "tea" }).check();
      await form.getByRole("checkbox", { name: "coffee" }).check();
      await form.getByRole("button", { name: "Submit" }).click();
      await page.waitForURL((url) => url.host === "thanks.example");
      const url = new URL(page.url());
      assert.equal(url.pathname, "/done");
      assert.deepEqual(
        [...url.searchParams],
        [
          ["from", "form"],
          ["who", "Ada L"],
          ["likes", "tea|coffee"],
          ["src", "hosted page"],
        ],
      );
      assert.equal((await s.submissions(formId)).results.length, 1);
      assert.deepEqual(s.strays, []);
      shop?.close();
    }
  });

  it("works under the service's base path, calling the API beside the page", async () => {
    const mounted = await startServer({ basePath: "/forms" });
    try {
      const owner = (await mounted.service.admin.createAccount({
        email: "bob@example.com",
      })) as TestUser;
      const { formId } = await createHostedForm(mounted.call, owner);
      const page = await s.openPage([new URL(mounted.base).host]);
      await page.goto(`${mounted.base}/forms/f/${formId}`);
      await page.getByRole("textbox", { name: "Name" }).fill("Bob");
      await page.getByRole("textbox", { name: "E-mail" }).fill("bob@example.com");
      await page.getByRole("button", { name: "Next" }).click();
      await page.getByRole("checkbox", { name: "coffee" }).check();
      await page.getByLabel("CV", { exact: true }).setInputFiles({
        name: "note.txt",
        mimeType: "text/plain",
        buffer: Buffer.from("under a base path"),
      });
      await page.locator('.uploads li[data-state="done"]').waitFor();
      await page.getByRole("button", { name: "Submit" }).click();
      await page.getByRole("status").waitFor();
      const listed = await mounted.call("GET", `/api/restricted/form/${formId}/submissions`, {
        as: owner,
      });
      assert.equal(listed.body.results.length, 1);
      const attachment = listed.body.attachments[0];
      assert.equal(attachment.unsafe_original_filename, "note.txt");
      const link = await mounted.call(
        "GET",
        `/api/restricted/form/${formId}/submissionattachment/${attachment.id}`,
        { as: owner },
      );
      assert.ok(link.body.id.startsWith(`${mounted.base}/forms/storage/${formId}/`));
      assert.equal(await (await fetch(link.body.id)).text(), "under a base path");
      assert.deepEqual(s.strays, []);
    } finally {
      await mounted.close();
    }
  });
});
