/**
 * What the online backup's tests share: a standalone server with an account and a form
 * that takes a file, submissions with their files posted (S3, then S2), and the admin CLI.
 */
import assert from "node:assert/strict";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { type CommandRun, runCommand } from "../run-command.ts";
import { call } from "./crash-fixture.ts";
import { freePort, root, start } from "./server-process.ts";

/** The `ADMIN_SECRET` the servers of these tests run with. */
export const adminSecret = "backup-admin-secret";

/** A server on its own port, with `PUBLIC_URL` naming it (download links do). */
export async function serverOn(dataDir: string): Promise<StandaloneServer> {
  const port = await freePort();
  return start({
    DATA_DIR: dataDir,
    ADMIN_SECRET: adminSecret,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    RATE_LIMIT_PUBLIC_PER_MINUTE: "0",
    RATE_LIMIT_CREDENTIAL_PER_MINUTE: "0",
    // An upload holds this much against its address's unclaimed bytes while it streams:
    // six clients at once stay below the cap.
    MAX_UPLOAD_BYTES: "4000000",
  });
}

/** A new temporary folder. */
export function scratch(name: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `formwork-${name}-`));
}

/** An account and its form with one file field. */
export interface FileForm {
  auth: Record<string, string>;
  formId: string;
}

export async function fileForm(server: StandaloneServer): Promise<FileForm> {
  const account = await json(
    server,
    "POST",
    "/api/admin/accounts",
    { AdminSecret: adminSecret },
    {
      email: "owner@example.com",
    },
  );
  const auth = { TokenId: account.token_id, TokenSecret: account.token_secret };
  const form = await json(server, "POST", "/api/restricted/form", auth, {
    form_configuration: { settings: { form_name: "Files", form_type: "classicsingle" } },
    form_definition: {
      pages: [{ fields: [{ unique_system_name: "cv_1", type: "file", label: "CV" }] }],
    },
  });
  return { auth, formId: String(form.id) };
}

/** The bytes of the `n`th file: its own, so that a mix-up shows. */
export function fileBytes(n: number, size = 2000 + ((n * 7919) % 20_000)): Uint8Array<ArrayBuffer> {
  return new Uint8Array(size).map((_, i) => (n * 31 + i) % 251);
}

/** A posted submission and its file. */
export interface Posted {
  submissionId: string;
  attachmentId: string;
  n: number;
}

/** S3 of the `n`th file, then S2 claiming it. @throws unless both succeed */
export async function post(
  server: StandaloneServer,
  formId: string,
  n: number,
  bytes = fileBytes(n),
): Promise<Posted> {
  const body = new FormData();
  body.append("cv_1", new Blob([bytes], { type: "application/octet-stream" }), `cv${n}.bin`);
  const upload = await fetch(`${server.base}/api/form/${formId}/submissionattachment`, {
    method: "POST",
    body,
  });
  const uploaded = await upload.json();
  assert.equal(upload.status, 200, JSON.stringify(uploaded));
  const submitted = await json(
    server,
    "POST",
    `/api/form/${formId}/submission`,
    {},
    {
      form_fields: [{ unique_system_name: "cv_1", submitted_value: uploaded.id }],
    },
  );
  return { submissionId: submitted.id, attachmentId: uploaded.id, n };
}

/** A JSON call (crash-fixture.ts's `call`). @returns its body @throws unless it answers 200 */
export async function json(
  server: StandaloneServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const answer = await call(server, method, path, headers, body);
  assert.equal(answer.status, 200, `${method} ${path}: ${JSON.stringify(answer.body)}`);
  return answer.body;
}

/** Runs the admin CLI against `server`, as `npm run admin` does but without npm's lines. */
export function admin(server: StandaloneServer, args: string[]): Promise<CommandRun> {
  const script = "examples/standalone/admin-cli.ts";
  const env = { ...process.env, ADMIN_SECRET: adminSecret, PUBLIC_URL: server.base };
  const flags = ["--conditions=formwork-source", "--import", "tsx"];
  return runCommand(process.execPath, [...flags, script, ...args], { cwd: root, env });
}
