import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { after, before } from "node:test";
import type { Browser, Page } from "playwright-core";
import type { FormServiceOptions } from "../../src/index.ts";
import type { TestUser } from "../helpers.ts";
import { launchChromium } from "./chromium.ts";
import { startServer } from "./server.ts";

/** Where the end-to-end tests leave their screenshots (ignored by git). */
export const artifacts = new URL("../artifacts/", import.meta.url);

/** The windows the page is tried in: a desktop and a 390 px phone. */
export const viewports = [
  { name: "desktop", width: 1280, height: 900 },
  { name: "phone", width: 390, height: 844 },
] as const;

/** The error messages shown under fields, in order. */
export const shownErrors = (page: Page) => page.locator(".error:not([hidden])").allTextContents();

/** The texts of the error summary's links, in order. */
export const summaryLinks = (page: Page) =>
  page.locator("#error-links a:visible").allTextContents();

/** Asserts that the page fits its window's width: nothing scrolls sideways. */
export async function assertFits(page: Page, width: number) {
  const scrolled = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(scrolled <= width, `${scrolled} px wide in a ${width} px window`);
}

/** The path of a screenshot under {@link artifacts}. */
export const screenshot = (name: string) => new URL(name, artifacts).pathname;

/**
 * A test file's browser session: the service on a real server with one account (`alice`),
 * and headless Chromium (see {@link launchChromium}), both closed after the file's tests. Call it inside `describe`.
 * `options` go to the service (a store the test reads and writes, say).
 */
export function browserSession(options: Partial<FormServiceOptions> = {}) {
  // Launched by the first page, so that a Chromium that cannot start fails each test with its
  // reason (a failing `before` hook would only cancel them).
  let browser: Promise<Browser> | undefined;
  const session = {
    env: undefined as unknown as Awaited<ReturnType<typeof startServer>>,
    alice: undefined as unknown as TestUser,
    /** What the last page asked of a host it was not allowed, or logged as an error. */
    strays: [] as string[],
    /** A fresh page that reports requests off the service and `allowedHosts`, and errors. */
    async openPage(allowedHosts: string[] = []): Promise<Page> {
      browser ??= launchChromium();
      const context = await (await browser).newContext({ viewport: { width: 900, height: 900 } });
      const page = await context.newPage();
      const strays: string[] = [];
      session.strays = strays;
      page.on("request", (request) => {
        const url = new URL(request.url());
        const allowed = url.origin === session.env.base || allowedHosts.includes(url.host);
        if (!allowed) strays.push(url.href);
      });
      page.on("console", (message) => {
        if (message.type() === "error") strays.push(message.text());
      });
      page.on("pageerror", (error) => strays.push(error.message));
      // The redirect targets (`*.example`) are answered here: no test reaches a real network.
      await context.route(
        (url) => url.hostname.endsWith(".example"),
        (route) => route.fulfill({ contentType: "text/html", body: "<p>Redirected</p>" }),
      );
      return page;
    },
    /**
     * Creates a one-page form of `fields` named `name` as `alice`, then saves each settings
     * section of `sections` (F2); answers its id.
     */
    async createForm(name: string, fields: unknown[], sections: Record<string, unknown> = {}) {
      const created = await session.env.call("POST", "/api/restricted/form", {
        as: session.alice,
        body: {
          form_configuration: { settings: { form_name: name, form_type: "classicsingle" } },
          form_definition: { pages: [{ fields }] },
        },
      });
      assert.equal(created.status, 200, JSON.stringify(created.body));
      const formId: string = created.body.id;
      for (const [section, body] of Object.entries(sections)) {
        const path = `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=${section}`;
        const saved = await session.env.call("POST", path, { as: session.alice, body });
        assert.equal(saved.status, 200, JSON.stringify(saved.body));
      }
      return formId;
    },
    /** Posts `values` (by system name) through S2, anonymously. */
    post(formId: string, values: Record<string, string>) {
      return session.env.call("POST", `/api/form/${formId}/submission`, {
        body: {
          form_fields: Object.entries(values).map(([name, value]) => ({
            unique_system_name: name,
            submitted_value: value,
          })),
        },
      });
    },
    /** S5 of a form, as its owner `alice`. */
    async submissions(formId: string) {
      const listed = await session.env.call("GET", `/api/restricted/form/${formId}/submissions`, {
        as: session.alice,
      });
      assert.equal(listed.status, 200);
      return listed.body;
    },
  };
  before(async () => {
    await mkdir(artifacts, { recursive: true });
    session.env = await startServer(options);
    const alice = await session.env.service.admin.createAccount({ email: "alice@example.com" });
    session.alice = alice as TestUser;
  });
  after(async () => {
    await (await browser?.catch(() => undefined))?.close();
    await session.env?.close();
  });
  return session;
}
