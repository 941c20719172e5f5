/**
 * Retried posts over real HTTP, against the standalone server as a child process: the same
 * `Idempotency-Key` sent 20 times at once stores one submission (docs/design.md §6).
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { freePort, start, stop } from "../standalone/server-process.ts";

const adminSecret = "idempotency admin secret";
const json = { "content-type": "application/json" };

describe("idempotent retries over HTTP", () => {
  it("stores one submission for the same key sent 20 times at once", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-idem-http-"));
    const port = await freePort();
    const server = await start({
      DATA_DIR: dataDir,
      ADMIN_SECRET: adminSecret,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: "warn",
    });
    after(async () => {
      await stop(server.child);
      await rm(dataDir, { recursive: true, force: true });
    });
    const account = await (
      await fetch(`${server.base}/api/admin/accounts`, {
        method: "POST",
        headers: { AdminSecret: adminSecret, ...json },
        body: JSON.stringify({ email: "owner@example.com" }),
      })
    ).json();
    const auth = { TokenId: account.token_id, TokenSecret: account.token_secret };
    const field = { unique_system_name: "name_1", type: "text", label: "Name" };
    const created = await fetch(`${server.base}/api/restricted/form`, {
      method: "POST",
      headers: { ...auth, ...json },
      body: JSON.stringify({
        form_configuration: { settings: { form_name: "Retries", form_type: "classicsingle" } },
        form_definition: { pages: [{ fields: [field] }] },
      }),
    });
    const formId: string = (await created.json()).id;
    const body = JSON.stringify({
      form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }],
    });
    const answers = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const response = await fetch(`${server.base}/api/form/${formId}/submission`, {
          method: "POST",
          headers: { ...json, "Idempotency-Key": "a0b1c2d3-retry" },
          body,
        });
        return { status: response.status, body: await response.json() };
      }),
    );
    for (const { status, body } of answers) {
      assert.ok(status === 200 || status === 409, `status ${status}`);
      if (status === 409) assert.equal(body.error, "idempotency_conflict");
    }
    const ids = new Set(answers.filter((a) => a.status === 200).map((a) => a.body.id));
    assert.equal(ids.size, 1);
    const listed = await fetch(`${server.base}/api/restricted/form/${formId}/submissions`, {
      headers: auth,
    });
    assert.equal((await listed.json()).results.length, 1);
  });
});
