import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { freePort, start, stop } from "./server-process.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");

describe("standalone server uploads", () => {
  let dataDir = "";
  after(() => rm(dataDir, { recursive: true, force: true }));

  it("takes a multipart upload over HTTP and serves it back through the signed link", async () => {
    dataDir = await mkdtemp(join(tmpdir(), "formwork-uploads-"));
    const port = await freePort();
    const server = await start({
      DATA_DIR: dataDir,
      ADMIN_SECRET: "secret",
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
    });
    try {
      const call = async (path: string, init: RequestInit = {}) =>
        (await fetch(`${server.base}${path}`, init)).json();
      const account = await call("/api/admin/accounts", {
        method: "POST",
        headers: { AdminSecret: "secret", "content-type": "application/json" },
        body: JSON.stringify({ email: "alice@example.com" }),
      });
      const auth = { TokenId: account.token_id, TokenSecret: account.token_secret };
      const field = { unique_system_name: "cv_1", type: "file", label: "CV" };
      const form = await call("/api/restricted/form", {
        method: "POST",
        headers: { ...auth, "content-type": "application/json" },
        body: JSON.stringify({
          form_configuration: { settings: { form_name: "Jobs", form_type: "classicsingle" } },
          form_definition: { pages: [{ fields: [field] }] },
        }),
      });
      const body = new FormData();
      const bytes = new Uint8Array(300_000).map((_, n) => n % 251);
      body.append("cv_1", new Blob([bytes], { type: "application/pdf" }), "cv.pdf");
      const uploaded = await call(`/api/form/${form.id}/submissionattachment`, {
        method: "POST",
        body,
      });
      assert.equal(uploaded.message, "File upload succeeded");
      const submitted = await call(`/api/form/${form.id}/submission`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          form_fields: [{ unique_system_name: "cv_1", submitted_value: uploaded.id }],
        }),
      });
      assert.equal(submitted.message, "Submission posted successfully");
      const link = await call(
        `/api/restricted/form/${form.id}/submissionattachment/${uploaded.id}`,
        {
          headers: auth,
        },
      );
      assert.ok(link.id.startsWith(`http://127.0.0.1:${port}/storage/${form.id}/`));
      const file = await fetch(link.id);
      assert.equal(file.status, 200);
      assert.equal(file.headers.get("content-type"), "application/pdf");
      assert.deepEqual(new Uint8Array(await file.arrayBuffer()), bytes);
      const tampered = await fetch(link.id.replace("sr=b", "sr=c"));
      assert.equal(tampered.status, 403);
    } finally {
      await stop(server.child);
    }
  });
});
