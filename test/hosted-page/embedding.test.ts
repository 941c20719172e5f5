/**
 * The hosted page in another site's frame (docs/design.md §21), on a desktop and a 390 px
 * phone: the framing page is README.md's snippet as written, served from another origin on
 * loopback; the frame follows the page's height (errors, the thanks message), the framing page
 * hears the id S5 lists, and `securitysettings.embed_origins` decides who may frame it.
 */
import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import type { Frame, Page } from "playwright-core";
import { settingsPath } from "./fixture.ts";
import { browserSession, screenshot, viewports } from "./session.ts";

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: true },
  { unique_system_name: "email_2", type: "email", label: "E-mail", required: true },
  { unique_system_name: "note_3", type: "textarea", label: "Note" },
];

/** README.md's embedding snippet, as written: the framing page's whole code. */
async function readmeSnippet(): Promise<string> {
  const readme = await readFile(new URL("../../README.md", import.meta.url), "utf8");
  const from = readme.indexOf("```html\n", readme.indexOf("**Embedding.**"));
  assert.ok(from > 0, "README.md has an Embedding paragraph with an html block");
  const start = from + "```html\n".length;
  return readme.slice(start, readme.indexOf("```", start));
}

/**
 * The framing site: README's snippet for a form on a page of another origin (`localhost`
 * against the service's `127.0.0.1`), served for real from loopback, as Chromium lets only a
 * page it can place on the network frame a loopback one.
 */
async function serveShop(snippet: string, service: string) {
  const pages = new Map<string, string>();
  const shop = createServer((request, response) => {
    response.setHeader("content-type", "text/html; charset=utf-8");
    response.end(pages.get(request.url ?? "") ?? "");
  });
  await new Promise<void>((resolve) => shop.listen(0, "127.0.0.1", resolve));
  const origin = `http://localhost:${(shop.address() as AddressInfo).port}`;
  /** The address of a page of the shop that embeds the form `formId`. */
  const embedding = (formId: string) => {
    const code = snippet.replaceAll("http://localhost:3000", service).replace("<form_id>", formId);
    assert.equal(code.split(service).length, 3, "the snippet names the server twice");
    pages.set(
      `/${formId}`,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Shop</title></head>
<body style="margin: 0 8px; font-family: system-ui; background: #fffbe6"><h1>Shop</h1><p>Order a print, then tell us about it:</p>
${code}<p>Shop footer</p></body></html>`,
    );
    return `${origin}/${formId}`;
  };
  return { origin, embedding, close: () => new Promise((resolve) => shop.close(resolve)) };
}

describe("hosted form page in Chromium: embedded in another site", { timeout: 120_000 }, () => {
  const s = browserSession();
  let shop: Awaited<ReturnType<typeof serveShop>>;
  before(async () => {
    shop = await serveShop(await readmeSnippet(), s.env.base);
  });
  after(() => shop?.close());

  async function createForm(security?: Record<string, unknown>) {
    const created = await s.env.call("POST", "/api/restricted/form", {
      as: s.alice,
      body: {
        form_configuration: {
          settings: { form_name: "Print feedback", form_type: "classicsingle" },
        },
        form_definition: { pages: [{ fields }] },
      },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    const formId: string = created.body.id;
    if (security) {
      const saved = await s.env.call("POST", settingsPath(formId, "securitysettings"), {
        as: s.alice,
        body: security,
      });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    }
    return formId;
  }

  /** The shop's page embedding `formId`, with what the snippet logs and every message heard. */
  async function openShop(formId: string, viewport: (typeof viewports)[number]) {
    const page = await s.openPage([new URL(shop.origin).host]);
    await page.setViewportSize({ width: viewport.width, height: viewport.height });
    const logged: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "log") logged.push(message.text());
    });
    await page.addInitScript(() => {
      const heard: unknown[] = [];
      Object.assign(window, { heard });
      addEventListener("message", (event) => heard.push(event.data));
    });
    await page.goto(shop.embedding(formId));
    return { page, logged, heard: () => page.evaluate(() => (window as { heard?: [] }).heard) };
  }

  const frameHeight = (page: Page) =>
    page.locator("#formwork-frame").evaluate((frame) => frame.getBoundingClientRect().height);
  const contentHeight = (frame: Frame) =>
    frame.evaluate(() => Math.ceil(document.documentElement.getBoundingClientRect().height));

  /** Waits until the frame is as tall as its page, and answers that height. */
  async function fitted(page: Page, frame: Frame): Promise<number> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const [outer, inner] = [await frameHeight(page), await contentHeight(frame)];
      if (outer === inner) {
        const [scrolls, wide] = await frame.evaluate(() => [
          document.documentElement.scrollHeight > innerHeight,
          document.documentElement.scrollWidth > innerWidth,
        ]);
        assert.ok(!scrolls && !wide, "the framed page scrolls neither way");
        return outer;
      }
      assert.ok(Date.now() < deadline, `the frame is ${outer} px for a page of ${inner} px`);
      await page.waitForTimeout(50);
    }
  }

  for (const viewport of viewports) {
    it(`grows and shrinks with the page and tells the shop the submission's id (${viewport.name})`, async () => {
      // On the phone, the form lists the shop (messages go to its origin alone); on the
      // desktop it lists none (any site, messages to "*").
      const listed = viewport.name === "phone";
      const formId = await createForm(
        listed ? { embed_origins: ["https://other.example", shop.origin] } : undefined,
      );
      const { page, logged, heard } = await openShop(formId, viewport);
      const frame = page.frameLocator("#formwork-frame");
      await frame.getByRole("button", { name: "Submit" }).waitFor();
      const framed = page.frames().find((f) => f.url().includes(`/f/${formId}`));
      assert.ok(framed);
      const first = await fitted(page, framed);
      assert.notEqual(first, 600, "the snippet's starting height is replaced");
      await page.screenshot({ path: screenshot(`embedded-${viewport.name}.png`), fullPage: true });

      await frame.getByRole("button", { name: "Submit" }).click();
      await frame.locator("#e-name_1").getByText("Name is required").waitFor();
      const withErrors = await fitted(page, framed);
      assert.ok(withErrors > first, `${withErrors} px with errors, ${first} px without`);
      await page.screenshot({
        path: screenshot(`embedded-${viewport.name}-errors.png`),
        fullPage: true,
      });

      await frame.getByRole("textbox", { name: "Name" }).fill("Ada");
      await frame.getByRole("textbox", { name: "E-mail" }).fill("ada@example.com");
      await frame.getByRole("button", { name: "Submit" }).click();
      await frame.getByRole("status").waitFor();
      const thanked = await fitted(page, framed);
      assert.ok(thanked < first, `${thanked} px for the thanks, ${first} px for the form`);
      await page.screenshot({
        path: screenshot(`embedded-${viewport.name}-thanks.png`),
        fullPage: true,
      });

      const [stored] = (await s.submissions(formId)).results;
      assert.ok(stored?.id);
      await page.waitForFunction(() => (window as { heard?: unknown[] }).heard?.length);
      assert.deepEqual(logged, [`Submitted ${stored.id}`]);
      const messages = (await heard()) as { type: string; formId: string }[];
      const resizes = messages.filter((message) => message.type === "formwork:resize");
      const others = messages.filter((message) => message.type !== "formwork:resize");
      assert.deepEqual(others, [{ type: "formwork:submitted", formId, submissionId: stored.id }]);
      assert.ok(resizes.length >= 3 && resizes.every((message) => message.formId === formId));
      assert.equal((resizes.at(-1) as { height?: number }).height, thanked);
      // The failed submit's 400, and nothing else: no request off the two sites, no error.
      assert.deepEqual(s.strays, [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)",
      ]);
    });
  }

  it("is refused by a shop the form does not list, and hears nothing", async () => {
    const formId = await createForm({ embed_origins: ["https://shop.example"] });
    const { page, heard } = await openShop(formId, viewports[0]);
    await page.waitForLoadState("load");
    assert.equal(await page.frameLocator("#formwork-frame").locator("form").count(), 0);
    assert.equal(await frameHeight(page), 600);
    await page.waitForTimeout(300);
    assert.deepEqual(await heard(), []);
    assert.deepEqual(s.strays, [
      `Framing '${s.env.base}/' violates the following Content Security Policy directive: "frame-ancestors https://shop.example". The request has been blocked.\n`,
    ]);
    assert.equal((await s.submissions(formId)).results.length, 0);

    // Opened on its own, the same page works as ever.
    await page.goto(`${s.env.base}/f/${formId}`);
    await page.getByRole("textbox", { name: "Name" }).fill("Ada");
    await page.getByRole("textbox", { name: "E-mail" }).fill("ada@example.com");
    await page.getByRole("button", { name: "Submit" }).click();
    await page.getByRole("status").waitFor();
    assert.equal((await s.submissions(formId)).results.length, 1);
  });

  it("still takes the shop to the thanks address when the form says so, the shop listed", async () => {
    const formId = await createForm({ embed_origins: [shop.origin] });
    const thanks = await s.env.call("POST", settingsPath(formId, "thankspagesettings"), {
      as: s.alice,
      body: {
        thanks_behaviour: "url_redirect",
        thanks_behaviour_redirect_url: "https://thanks.example/done",
        thanks_behaviour_redirect_parent_page: true,
      },
    });
    assert.equal(thanks.status, 200, JSON.stringify(thanks.body));
    const page = await s.openPage([new URL(shop.origin).host, "thanks.example"]);
    await page.goto(shop.embedding(formId));
    const frame = page.frameLocator("#formwork-frame");
    await frame.getByRole("textbox", { name: "Name" }).fill("Ada");
    await frame.getByRole("textbox", { name: "E-mail" }).fill("ada@example.com");
    await frame.getByRole("button", { name: "Submit" }).click();
    await page.waitForURL("https://thanks.example/done");
    assert.equal((await s.submissions(formId)).results.length, 1);
    assert.deepEqual(s.strays, []);
  });
});
