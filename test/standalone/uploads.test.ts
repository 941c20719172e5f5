import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { uploadFile } from "../../bench/multipart-upload.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { eventually, freePort, stalledUpload, start, stop } from "./server-process.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");

/** A standalone server on a new data folder, with an account and a form of `fields`. */
async function serverWithForm(fields: unknown[], env: Record<string, string> = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), "formwork-uploads-"));
  after(() => rm(dataDir, { recursive: true, force: true }));
  const port = await freePort();
  const server = await start({
    DATA_DIR: dataDir,
    ADMIN_SECRET: "secret",
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    ...env,
  });
  const call = async (path: string, init: RequestInit = {}) =>
    (await fetch(`${server.base}${path}`, init)).json();
  const account = await call("/api/admin/accounts", {
    method: "POST",
    headers: { AdminSecret: "secret", "content-type": "application/json" },
    body: JSON.stringify({ email: "alice@example.com" }),
  });
  const auth = { TokenId: account.token_id, TokenSecret: account.token_secret };
  const form = await call("/api/restricted/form", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      form_configuration: { settings: { form_name: "Jobs", form_type: "classicsingle" } },
      form_definition: { pages: [{ fields }] },
    }),
  });
  return { server, port, dataDir, call, auth, formId: String(form.id) };
}

describe("standalone server uploads", () => {
  it("takes a multipart upload over HTTP and serves it back through the signed link", async () => {
    const field = { unique_system_name: "cv_1", type: "file", label: "CV" };
    const { server, port, call, auth, formId } = await serverWithForm([field]);
    try {
      const body = new FormData();
      const bytes = new Uint8Array(300_000).map((_, n) => n % 251);
      body.append("cv_1", new Blob([bytes], { type: "application/pdf" }), "cv.pdf");
      const uploaded = await call(`/api/form/${formId}/submissionattachment`, {
        method: "POST",
        body,
      });
      assert.equal(uploaded.message, "File upload succeeded");
      const submitted = await call(`/api/form/${formId}/submission`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({
          form_fields: [{ unique_system_name: "cv_1", submitted_value: uploaded.id }],
        }),
      });
      assert.equal(submitted.message, "Submission posted successfully");
      const link = await call(
        `/api/restricted/form/${formId}/submissionattachment/${uploaded.id}`,
        {
          headers: auth,
        },
      );
      assert.ok(link.id.startsWith(`http://127.0.0.1:${port}/storage/${formId}/`));
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

  // The server hands Node's request straight to the multipart parser (ConnectionInfo.body).
  it("streams a file of many socket reads byte for byte, and answers 413 to one past its field's size midway", async () => {
    const fields = [
      { unique_system_name: "cv_1", type: "file", label: "CV" },
      { unique_system_name: "photo_2", type: "file", label: "Photo", max_file_size: 1048576 },
    ];
    const { server, dataDir, call, auth, formId } = await serverWithForm(fields);
    try {
      const url = `${server.base}/api/form/${formId}/submissionattachment`;
      const bytes = new Uint8Array(randomBytes(6 * 1024 * 1024));
      const body = new FormData();
      body.append("cv_1", new Blob([bytes], { type: "application/octet-stream" }), "cv.bin");
      const uploaded = await call(`/api/form/${formId}/submissionattachment`, {
        method: "POST",
        body,
      });
      assert.equal(uploaded.message, "File upload succeeded");
      const link = await call(
        `/api/restricted/form/${formId}/submissionattachment/${uploaded.id}`,
        {
          headers: auth,
        },
      );
      const file = await fetch(link.id);
      assert.deepEqual(new Uint8Array(await file.arrayBuffer()), bytes);

      // 8 MiB sent with backpressure: the answer comes while the body is still on its way.
      const refused = await uploadFile(url, "photo_2", 8 * 1024 * 1024);
      assert.equal(refused.status, 413);
      assert.equal(JSON.parse(refused.body).error, "payload_too_large");
      const stored = await readdir(join(dataDir, "files", formId));
      assert.deepEqual(stored, [uploaded.id]);
      // The connection's refusal leaves the server answering.
      const again = await uploadFile(url, "cv_1", 1024);
      assert.equal(again.status, 200, again.body);
    } finally {
      await stop(server.child);
    }
  });

  it("gives back the hold of an upload whose client goes away midway", async () => {
    const field = { unique_system_name: "cv_1", type: "file", label: "CV" };
    // Each upload holds the whole 1 MiB while it streams: a hold left behind fills the cap.
    const env = { MAX_UPLOAD_BYTES: "1048576", MAX_UNCLAIMED_UPLOAD_BYTES: "1048576" };
    const { server, dataDir, formId } = await serverWithForm([field], env);
    try {
      const url = `${server.base}/api/form/${formId}/submissionattachment`;
      const going = await stalledUpload(url, "cv_1", dataDir);
      assert.ok(going, "the upload never started writing");
      going.destroy();
      const next = await eventually(
        async () => (await uploadFile(url, "cv_1", 1024)).status === 200,
      );
      assert.ok(next, "the cap stayed full after the client went away");
      assert.equal((await readdir(join(dataDir, "files", ".partial"))).length, 0);
    } finally {
      await stop(server.child);
    }
  });
});
