/**
 * Abuse over real HTTP, against the standalone server as a child process: slow clients
 * beside normal calls, the public rate limit answering 429 with its headers, and the cap on
 * unclaimed uploads under concurrent uploads.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { freePort, start, stop } from "../standalone/server-process.ts";
import { type Slowness, slowClient } from "./slow-client.ts";

const adminSecret = "abuse admin secret";

/** A standalone server on a fresh data folder, with an account and a form taking files. */
async function serverWith(env: Record<string, string>) {
  const dataDir = await mkdtemp(join(tmpdir(), "formwork-abuse-"));
  const port = await freePort();
  const server: StandaloneServer = await start({
    DATA_DIR: dataDir,
    ADMIN_SECRET: adminSecret,
    PORT: String(port),
    PUBLIC_URL: `http://127.0.0.1:${port}`,
    LOG_LEVEL: "warn",
    ...env,
  });
  const json = { "content-type": "application/json" };
  const account = await (
    await fetch(`${server.base}/api/admin/accounts`, {
      method: "POST",
      headers: { AdminSecret: adminSecret, ...json },
      body: JSON.stringify({ email: "owner@example.com" }),
    })
  ).json();
  const auth = { TokenId: account.token_id, TokenSecret: account.token_secret };
  const field = { unique_system_name: "cv_1", type: "file", label: "CV" };
  const created = await fetch(`${server.base}/api/restricted/form`, {
    method: "POST",
    headers: { ...auth, ...json },
    body: JSON.stringify({
      form_configuration: { settings: { form_name: "Abuse", form_type: "classicsingle" } },
      form_definition: { pages: [{ fields: [field] }] },
    }),
  });
  assert.equal(created.status, 200);
  const formId: string = (await created.json()).id;
  const close = async () => {
    await stop(server.child);
    await rm(dataDir, { recursive: true, force: true });
  };
  return { server, port, dataDir, auth, formId, close };
}

/** Reads an answer's status, headers and JSON body. */
async function answer(response: Response) {
  return { status: response.status, headers: response.headers, body: await response.json() };
}

describe("slow clients and rate limits over HTTP", () => {
  let env: Awaited<ReturnType<typeof serverWith>>;
  before(async () => {
    env = await serverWith({
      HEADERS_TIMEOUT_MS: "1000",
      REQUEST_TIMEOUT_MS: "2000",
      RATE_LIMIT_PUBLIC_PER_MINUTE: "4",
    });
  });
  after(() => env.close());

  it("cuts off clients that stall or trickle while normal calls keep answering", async () => {
    const kinds: Slowness[] = ["idle", "trickled-headers", "stalled-body", "trickled-body"];
    // A restricted route: slow clients there do not spend the public allowance of 127.0.0.1.
    const slow = kinds.flatMap((kind) =>
      Array.from({ length: 5 }, () =>
        slowClient(env.port, kind, "/api/restricted/datalist", env.auth),
      ),
    );
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      const listed = await fetch(`${env.server.base}/api/restricted/user/form`, {
        headers: env.auth,
      });
      statuses.push(listed.status);
      await listed.arrayBuffer();
    }
    assert.deepEqual(statuses, Array(20).fill(200), "normal calls answered beside 20 slow clients");
    const outcomes = await Promise.all(slow);
    for (const [index, outcome] of outcomes.entries()) {
      const kind = kinds[Math.floor(index / 5)];
      assert.ok(
        outcome.received === "" || outcome.received.startsWith("HTTP/1.1 408"),
        `${kind}: ${outcome.received.slice(0, 200)}`,
      );
    }
    const after = await fetch(`${env.server.base}/api/restricted/user/form`, { headers: env.auth });
    assert.equal(after.status, 200, "the server still answers once they are gone");
    await after.arrayBuffer();
  });

  it("answers the fifth public call of a minute 429 with Retry-After and RateLimit-* headers", async () => {
    const calls = [];
    for (let i = 0; i < 5; i++) {
      calls.push(await answer(await fetch(`${env.server.base}/api/form/${env.formId}`)));
    }
    assert.deepEqual(
      calls.map((call) => call.status),
      [200, 200, 200, 200, 429],
    );
    assert.deepEqual(
      calls.map((call) => call.headers.get("ratelimit-remaining")),
      ["3", "2", "1", "0", "0"],
    );
    const refused = calls[4];
    assert.ok(refused);
    assert.equal(refused.headers.get("ratelimit-limit"), "4");
    const retryAfter = Number(refused.headers.get("retry-after"));
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.ok(Number(refused.headers.get("ratelimit-reset")) >= 1);
    assert.deepEqual(refused.body, {
      id: "",
      message: refused.body.message,
      action_successful: false,
      error: "rate_limited",
    });
    const page = await fetch(`${env.server.base}/f/${env.formId}`);
    assert.equal(page.status, 429, "the hosted page draws on the same allowance");
    await page.arrayBuffer();
  });
});

describe("the unclaimed-upload cap over HTTP", () => {
  it("lets concurrent uploads fill the cap, never pass it, and store nothing refused", async () => {
    const env = await serverWith({ MAX_UNCLAIMED_UPLOAD_BYTES: "1000", MAX_UPLOAD_BYTES: "400" });
    try {
      const upload = () => {
        const body = new FormData();
        body.append("cv_1", new Blob(["x".repeat(300)], { type: "text/plain" }), "cv.txt");
        return fetch(`${env.server.base}/api/form/${env.formId}/submissionattachment`, {
          method: "POST",
          body,
        }).then(answer);
      };
      const answers = await Promise.all(Array.from({ length: 8 }, upload));
      const stored = answers.filter((one) => one.status === 200).length;
      for (const one of answers) {
        if (one.status !== 200) {
          assert.equal(one.status, 413, JSON.stringify(one.body));
          assert.equal(one.body.error, "payload_too_large");
        }
      }
      // Each upload holds 400 bytes (MAX_UPLOAD_BYTES) while it streams, then its 300.
      assert.ok(stored >= 2 && stored <= 3, `${stored} stored`);
      const files = await readdir(join(env.dataDir, "files", env.formId));
      assert.equal(files.filter((name) => !name.startsWith(".")).length, stored);
    } finally {
      await env.close();
    }
  });
});
