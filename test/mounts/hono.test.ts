import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { getRequestListener } from "@hono/node-server";
import { createApp } from "../../examples/hono/app.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { admin, startExample } from "./example-server.ts";
import { type Running, startApp, walkThrough } from "./walkthrough.ts";

describe("the Hono example, formwork under /forms", () => {
  let running: Running;
  before(async () => {
    running = await startApp((options) => {
      const { app, service } = createApp(options);
      // What `serve({ fetch: app.fetch })` of server.ts does with each request.
      return { listener: getRequestListener(app.fetch), service };
    });
  });
  after(() => running.close());

  it("serves the walk-through under /forms, upload and downloads included", async () => {
    await walkThrough(running.origin);
  });

  it("leaves the rest of the app to Hono", async () => {
    const home = await fetch(`${running.origin}/`);
    assert.equal(home.status, 200);
    assert.match(await home.text(), /Forms live under \/forms/);
    const outside = await fetch(`${running.origin}/api/restricted/user/form`);
    assert.equal(outside.status, 404);
    assert.equal(await outside.text(), "404 Not Found");
  });

  it("describes itself at /forms/openapi.json", async () => {
    const response = await conformingHttpFetch("/forms")(`${running.origin}/forms/openapi.json`);
    assert.equal(response.status, 200);
    assert.deepEqual((await response.json()).servers, [{ url: "/forms" }]);
  });

  it("says at start where its data is, and that it has no admin API without ADMIN_SECRET", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-hono-"));
    const example = await startExample("hono", { DATA_DIR: dataDir });
    try {
      const url = `http://127.0.0.1:${example.port}/forms`;
      assert.equal(
        example.output,
        [
          `hono example listening on ${url}`,
          `data folder: ${dataDir} (records and files; DATA_DIR sets it)`,
          `admin API: none; start with ADMIN_SECRET=<secret> to have one, then: npm run admin -- list-accounts --url ${url} --admin-secret <secret>`,
          "",
        ].join("\n"),
      );
      const refused = await admin(["list-accounts", "--url", url, "--admin-secret", "x"]);
      assert.equal(refused.code, 1);
    } finally {
      assert.equal(await example.stop(), 0);
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
