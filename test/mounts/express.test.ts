import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { getRequestListener } from "@hono/node-server";
import express from "express";
import { createFormService } from "formwork";
import { createMemoryStore } from "formwork/adapters/memory";
import { createApp } from "../../examples/express/app.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { admin, startExample } from "./example-server.ts";
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

  it("says at start where its data is and how the admin CLI reaches it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-express-"));
    // A secret starting with -, as the admin CLI must take it.
    const example = await startExample("express", { DATA_DIR: dataDir, ADMIN_SECRET: "-S-abc" });
    try {
      const url = `http://127.0.0.1:${example.port}/forms`;
      assert.equal(
        example.output,
        [
          `express example listening on ${url}`,
          `data folder: ${dataDir} (records and files; DATA_DIR sets it)`,
          `admin API: ${url}/api/admin, with the ADMIN_SECRET it started with: npm run admin -- list-accounts --url ${url} --admin-secret "$ADMIN_SECRET"`,
          "",
        ].join("\n"),
      );
      const made = await admin([
        "create-account",
        "--email",
        "ada@example.com",
        "--url",
        url,
        "--admin-secret",
        "-S-abc",
      ]);
      assert.equal(made.code, 0, made.stderr);
      const listed = await admin(["list-accounts", "--url", url, "--admin-secret", "-S-abc"]);
      assert.equal(listed.code, 0, listed.stderr);
      assert.equal(JSON.parse(listed.stdout)[0].email, "ada@example.com");
    } finally {
      await example.stop();
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
