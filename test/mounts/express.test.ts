import assert from "node:assert/strict";
import { once } from "node:events";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { getRequestListener } from "@hono/node-server";
import express from "express";
import { createFormService } from "formwork";
import { createMemoryStore } from "formwork/adapters/memory";
import { createApp } from "../../examples/express/app.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { type Running, startApp, walkThrough } from "./walkthrough.ts";

describe("the Express example, formwork under /forms", () => {
  let running: Running;
  before(async () => {
    running = await startApp((options) => {
      const { app, service } = createApp(options);
      return { listener: app, service };
    });
  });
  after(() => running.close());

  it("serves the walk-through under /forms, upload and downloads included", async () => {
    await walkThrough(running.origin);
  });

  it("leaves the rest of the app to Express", async () => {
    const home = await fetch(`${running.origin}/`);
    assert.equal(home.status, 200);
    assert.match(await home.text(), /Forms live under \/forms/);
    // Outside /forms, Express answers: formwork never sees the request.
    const outside = await fetch(`${running.origin}/api/restricted/user/form`);
    assert.equal(outside.status, 404);
    assert.match(outside.headers.get("content-type") ?? "", /text\/html/);
  });

  it("would see no route if mounted with app.use, which strips /forms", async () => {
    const service = createFormService({ store: createMemoryStore(), basePath: "/forms" });
    const stripping = express();
    stripping.use(
      "/forms",
      getRequestListener((request) => service.fetch(request)),
    );
    const server = stripping.listen(0, "127.0.0.1");
    await once(server, "listening");
    try {
      const { port } = server.address() as AddressInfo;
      const response = await fetch(`http://127.0.0.1:${port}/forms/openapi.json`);
      assert.equal(response.status, 404);
      assert.equal((await response.json()).message, "No such endpoint");
    } finally {
      server.close();
      await service.close();
    }
  });

  it("describes itself at /forms/openapi.json", async () => {
    const response = await conformingHttpFetch("/forms")(`${running.origin}/forms/openapi.json`);
    assert.equal(response.status, 200);
    assert.deepEqual((await response.json()).servers, [{ url: "/forms" }]);
  });
});
