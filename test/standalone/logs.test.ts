import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { start, stop } from "./server-process.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");

/** A standalone server on a fresh data folder, with everything it prints kept. */
async function serverWith(env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), "formwork-logs-"));
  after(() => rm(dataDir, { recursive: true, force: true }));
  const server = await start({ DATA_DIR: dataDir, ADMIN_SECRET: "admin-secret-value", ...env });
  let stdout = "";
  let stderr = "";
  server.child.stdout?.on("data", (chunk) => {
    stdout += chunk;
  });
  server.child.stderr?.on("data", (chunk) => {
    stderr += chunk;
  });
  /** Waits until stdout holds `text` (the test's own timeout bounds the wait). */
  const printed = async (text: string) => {
    while (!stdout.includes(text)) await new Promise((resolve) => setTimeout(resolve, 20));
  };
  /** Stops the server. @returns what it printed meanwhile, stdout's JSON lines parsed. */
  const finish = async () => {
    assert.equal(await stop(server.child), 0);
    const lines = stdout
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    return { lines, stdout, stderr };
  };
  return { base: server.base, printed, finish };
}

/** An account and a form on `base`, through the admin API and F-routes. */
async function accountAndForm(base: string) {
  const account = await (
    await fetch(`${base}/api/admin/accounts`, {
      method: "POST",
      headers: { AdminSecret: "admin-secret-value", "content-type": "application/json" },
      body: JSON.stringify({ email: "alice@example.com" }),
    })
  ).json();
  const form = await (
    await fetch(`${base}/api/restricted/form`, {
      method: "POST",
      headers: {
        TokenId: account.token_id,
        TokenSecret: account.token_secret,
        "content-type": "application/json",
      },
      body: JSON.stringify({
        form_configuration: { settings: { form_name: "Logs", form_type: "classicsingle" } },
        form_definition: { pages: [] },
      }),
    })
  ).json();
  return { tokenSecret: account.token_secret as string, formId: form.id as string };
}

/**
 * Sends S2's headers and half its body on a raw socket, then hangs up: a client that goes
 * away mid-upload.
 */
async function abortedSubmission(base: string, formId: string): Promise<void> {
  const { hostname, port } = new URL(base);
  const body = JSON.stringify({ form_fields: [{ unique_system_name: "x", submitted_value: "y" }] });
  const socket = connect(Number(port), hostname);
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  socket.write(
    `POST /api/form/${formId}/submission HTTP/1.1\r\nHost: ${hostname}\r\n` +
      `Content-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n` +
      body.slice(0, body.length / 2),
  );
  // The server reads the headers and starts on the body before the hang-up.
  await new Promise((resolve) => setTimeout(resolve, 200));
  socket.destroy();
}

describe("standalone server logs (LOG_LEVEL)", () => {
  it("writes request lines as JSON, and an aborted body as a debug line with no stack", {
    timeout: 60_000,
  }, async () => {
    const server = await serverWith({ LOG_LEVEL: "debug" });
    const { tokenSecret, formId } = await accountAndForm(server.base);
    await abortedSubmission(server.base, formId);
    // The server learns of the hang-up when the socket closes, in its own time.
    await server.printed('"status":400');
    assert.equal((await fetch(`${server.base}/nothing`)).status, 404);
    const { lines, stdout, stderr } = await server.finish();

    const aborted = lines.filter((line) => line.msg === "request body cut short by the client");
    assert.equal(aborted.length, 1);
    assert.equal(aborted[0]?.level, 20);
    assert.equal(aborted[0]?.route, "/api/form/:formId/submission");
    const requests = lines.filter((line) => line.msg === "request");
    assert.deepEqual(
      requests.map((line) => [line.level, line.method, line.route, line.status]),
      [
        [30, "POST", "/api/admin/accounts", 200],
        [30, "POST", "/api/restricted/form", 200],
        [30, "POST", "/api/form/:formId/submission", 400],
        [30, "GET", "(unknown)", 404],
      ],
    );
    assert.equal(requests[2]?.requestId, aborted[0]?.requestId);
    assert.doesNotMatch(stdout + stderr, /^\s+at /m);
    for (const secret of [tokenSecret, "admin-secret-value", formId]) {
      assert.ok(!stdout.includes(secret), "a secret or an id reached the log");
    }
  });

  it("writes no request line at LOG_LEVEL=warn", async () => {
    const server = await serverWith({ LOG_LEVEL: "warn" });
    await accountAndForm(server.base);
    assert.equal((await fetch(`${server.base}/nothing`)).status, 404);
    const { lines, stdout, stderr } = await server.finish();
    assert.deepEqual(lines, []);
    assert.doesNotMatch(stdout + stderr, /^\s+at /m);
  });
});
