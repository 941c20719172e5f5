/**
 * The typed client of `examples/typed-client`: its committed types are what
 * openapi-typescript makes of the live document, and README's walk-through runs with them
 * and openapi-fetch against a real server, every answer checked against the document.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { serve } from "@hono/node-server";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { generateTypes, liveDocument, schemaFile } from "../../examples/typed-client/generate.ts";
import { formworkClient, walkThrough } from "../../examples/typed-client/walk-through.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import { conformingHttpFetch } from "./conformance.ts";

describe("typed client (examples/typed-client)", () => {
  it("has types generated from the live document (npm run generate:client)", async () => {
    const committed = await readFile(schemaFile, "utf8");
    const generated = await generateTypes(await liveDocument());
    assert.ok(generated === committed, "schema.d.ts is stale: run npm run generate:client");
  });

  it("walks README's walk-through with openapi-fetch against a real server", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-typed-client-"));
    let service: FormService | undefined;
    const server = serve({
      fetch: (request) => service?.fetch(request) ?? new Response(null, { status: 503 }),
      hostname: "127.0.0.1",
      port: 0,
    });
    await once(server, "listening");
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service = createFormService({
      store: createMemoryStore(),
      blobs: createFsBlobStore({
        directory,
        storageUrl: `${base}/storage`,
        signingSecret: "typed client test secret",
      }),
      adminSecret: "admin",
      webhookPollMs: 0,
      sweepIntervalMs: 0,
    });
    try {
      const http = conformingHttpFetch("");
      const result = await walkThrough(
        formworkClient(base, (request) => http(request)),
        "admin",
      );
      assert.deepEqual(result.cities, ["Auckland", "Wellington"]);
      assert.equal(result.formName, "Contact us");
      assert.equal(result.submittedValues.gpi_1, "Ada");
      assert.equal(result.submittedValues.gpi_3, "Wellington");
      const file = await http(result.downloadLink);
      assert.equal(file.status, 200);
      assert.equal(await file.text(), "my curriculum vitae\n");
    } finally {
      server.close();
      await service?.close();
      await rm(directory, { recursive: true, force: true });
    }
  });
});
