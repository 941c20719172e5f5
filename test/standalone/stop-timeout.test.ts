import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { conformingHttpFetch } from "../openapi/conformance.ts";
import { stalledUpload, start, stop } from "./server-process.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");
const stopTimeoutMs = 1500;

describe("a stop that ends", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("answers /readyz 503 and /healthz 200 while it stops, cuts off a stalled upload after STOP_TIMEOUT_MS, exits 1 saying so, and keeps the store whole", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-stop-timeout-"));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, ADMIN_SECRET: "secret", STOP_TIMEOUT_MS: `${stopTimeoutMs}` };
    const server = await start(env);
    const { base, child } = server;
    let stderr = "";
    child.stderr?.on("data", (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
    const call = async (path: string, init: RequestInit = {}) =>
      (await fetch(`${base}${path}`, init)).json();
    const account = await call("/api/admin/accounts", {
      method: "POST",
      headers: { AdminSecret: "secret", "content-type": "application/json" },
      body: JSON.stringify({ email: "alice@example.com" }),
    });
    const auth = { TokenId: account.token_id, TokenSecret: account.token_secret };
    const fields = [
      { unique_system_name: "name_1", type: "text", label: "Name" },
      { unique_system_name: "cv_2", type: "file", label: "CV" },
    ];
    const form = await call("/api/restricted/form", {
      method: "POST",
      headers: { ...auth, "content-type": "application/json" },
      body: JSON.stringify({
        form_configuration: { settings: { form_name: "Jobs", form_type: "classicsingle" } },
        form_definition: { pages: [{ fields }] },
      }),
    });
    const posted = await call(`/api/form/${form.id}/submission`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        form_fields: [{ unique_system_name: "name_1", submitted_value: "Before the stop" }],
      }),
    });
    assert.equal(posted.actionSuccessful, true);
    assert.deepEqual(await call("/readyz"), { status: "ready", failed: [] });

    // An upload whose body never finishes: its client stalls after a third.
    const stalled = await stalledUpload(
      `${base}/api/form/${form.id}/submissionattachment`,
      "cv_2",
      dataDir,
    );
    assert.ok(stalled, "the upload never started writing");

    const signalled = performance.now();
    child.kill("SIGTERM");
    await sleep(200);
    const ready = await fetch(`${base}/readyz`);
    assert.equal(ready.status, 503);
    assert.deepEqual(await ready.json(), { status: "stopping", failed: [] });
    const health = await fetch(`${base}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { status: "ok" });

    assert.equal(await exited, 1);
    const took = performance.now() - signalled;
    assert.ok(took >= stopTimeoutMs, `exited after ${Math.round(took)} ms`);
    assert.ok(took < stopTimeoutMs + 5000, `exited after ${Math.round(took)} ms`);
    assert.equal(
      stderr,
      `formwork: STOP_TIMEOUT_MS (${stopTimeoutMs} ms) ran out; cut off 1 request still running (POST /api/form/:formId/submissionattachment)\n`,
    );
    stalled.destroy();

    const restarted = await start(env);
    try {
      const read = await fetch(
        `${restarted.base}/api/restricted/form/${form.id}/submission/${posted.id}`,
        { headers: auth },
      );
      assert.equal(read.status, 200);
    } finally {
      await stop(restarted.child);
    }
  });
});
