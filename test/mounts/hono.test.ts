import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { getRequestListener } from "@hono/node-server";
import { createApp } from "../../examples/hono/app.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";
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
});
