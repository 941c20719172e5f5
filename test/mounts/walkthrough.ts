import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, type RequestListener, type Server } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FormService } from "formwork";
import { conformingHttpFetch } from "../openapi/conformance.ts";

/** What a mount example's `createApp` takes. */
export interface AppOptions {
  publicUrl: string;
  dataDir: string;
  signingSecret: string;
  adminSecret?: string;
}

/** A mount example's app, listening on a free loopback port. */
export interface Running {
  /** `http://127.0.0.1:<port>`, where the app is reached. */
  origin: string;
  close(): Promise<void>;
}

/**
 * Listens first, so that the app can be told its public URL, then hands every request to
 * the listener `build` makes from the app. Everything is undone by `close`.
 */
export async function startApp(
  build: (options: AppOptions) => { listener: RequestListener; service: FormService },
): Promise<Running> {
  const dataDir = await mkdtemp(join(tmpdir(), "formwork-mount-"));
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  const origin = `http://127.0.0.1:${address.port}`;
  const { listener, service } = build({
    publicUrl: origin,
    dataDir,
    signingSecret: "mount-test-signing-secret",
    adminSecret: "admin",
  });
  server.on("request", listener);
  return {
    origin,
    async close() {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await service.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

/** Where {@link walkThrough} finds the interface and the files. */
export interface WalkOptions {
  /** The interface's path under the origin. @default "/forms" */
  basePath?: string;
  /** The server's `AdminSecret`. @default "admin" */
  adminSecret?: string;
  /** Where download links point, e.g. Azurite's blob endpoint. @default "<base>/storage" */
  storageUrl?: string;
}

/**
 * The walk-through of the README over real HTTP under `<origin><basePath>`: an account from
 * the admin API, a form with a file field, a multipart upload, a submission,
 * then the file read back through S4's link, S1's signed query and S5's container query.
 */
export async function walkThrough(origin: string, options: WalkOptions = {}): Promise<void> {
  const base = `${origin}${options.basePath ?? "/forms"}`;
  // Every answer of the service is checked against its OpenAPI document.
  const http = conformingHttpFetch(options.basePath ?? "/forms");
  const call = async (path: string, init: RequestInit = {}) => {
    const response = await http(`${base}${path}`, init);
    const body = await response.json();
    assert.equal(response.status, 200, JSON.stringify(body));
    return body;
  };
  const account = await call("/api/admin/accounts", {
    method: "POST",
    headers: { AdminSecret: options.adminSecret ?? "admin", "content-type": "application/json" },
    body: JSON.stringify({ email: "owner@example.com" }),
  });
  const auth = { TokenId: account.token_id, TokenSecret: account.token_secret };
  const form = await call("/api/restricted/form", {
    method: "POST",
    headers: { ...auth, "content-type": "application/json" },
    body: JSON.stringify({
      form_configuration: { settings: { form_name: "Jobs", form_type: "classicsingle" } },
      form_definition: {
        pages: [{ fields: [{ unique_system_name: "cv_1", type: "file", label: "CV" }] }],
      },
    }),
  });

  const bytes = new Uint8Array(200_000).map((_, n) => (n * 7) % 256);
  const upload = new FormData();
  upload.append("cv_1", new Blob([bytes], { type: "application/pdf" }), "cv.pdf");
  const attachment = await call(`/api/form/${form.id}/submissionattachment`, {
    method: "POST",
    body: upload,
  });
  assert.equal(attachment.message, "File upload succeeded");
  const submission = await call(`/api/form/${form.id}/submission`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      form_fields: [{ unique_system_name: "cv_1", submitted_value: attachment.id }],
    }),
  });
  assert.equal(submission.message, "Submission posted successfully");

  const blobUrl = `${options.storageUrl ?? `${base}/storage`}/${form.id}/${attachment.id}`;
  const link = await call(`/api/restricted/form/${form.id}/submissionattachment/${attachment.id}`, {
    headers: auth,
  });
  assert.ok(link.id.startsWith(`${blobUrl}?`), link.id);
  // Downloads come from the service itself unless they point elsewhere (Azurite).
  const download = options.storageUrl ? fetch : http;
  await assertDownload(download, link.id, bytes);

  const read = await call(`/api/restricted/form/${form.id}/submission/${submission.id}`, {
    headers: auth,
  });
  await assertDownload(
    download,
    `${blobUrl}${read.attachment_details[0].attachment_sas_uri}`,
    bytes,
  );
  const listed = await call(`/api/restricted/form/${form.id}/submissions`, { headers: auth });
  // The bridge handed the connection's address over.
  assert.equal(listed.results[0].created_by_device.client_ip_address, "127.0.0.1");
  await assertDownload(download, `${blobUrl}${listed.container_sas_uri}`, bytes);
}

async function assertDownload(
  get: (url: string) => Promise<Response>,
  url: string,
  bytes: Uint8Array,
) {
  const file = await get(url);
  assert.equal(file.status, 200);
  assert.equal(file.headers.get("content-type"), "application/pdf");
  assert.deepEqual(new Uint8Array(await file.arrayBuffer()), bytes);
}
