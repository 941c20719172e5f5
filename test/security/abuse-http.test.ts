/**
 * Abuse over real HTTP, against the standalone server as a child process: slow clients
 * beside normal calls, the public rate limit answering 429 with its headers, and the cap on
 * unclaimed uploads under concurrent uploads from several client addresses.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { request as httpRequest } from "node:http";
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

/**
 * Uploads a file of `bytes` bytes to the form from the loopback address `from`: every address
 * of 127.0.0.0/8 reaches the server, so each stands for a client of its own.
 */
async function uploadFrom(env: { port: number; formId: string }, from: string, bytes: number) {
  const form = new FormData();
  form.append("cv_1", new Blob(["x".repeat(bytes)], { type: "text/plain" }), "cv.txt");
  const encoded = new Response(form);
  const body = new Uint8Array(await encoded.arrayBuffer());
  const headers = {
    "content-type": encoded.headers.get("content-type") ?? "",
    "content-length": String(body.length),
  };
  const path = `/api/form/${env.formId}/submissionattachment`;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
  return new Promise<{ status: number; body: any }>((resolve, reject) => {
    const options = { host: "127.0.0.1", port: env.port, path, method: "POST", headers };
    const sent = httpRequest({ ...options, localAddress: from }, (response) => {
      const chunks: Uint8Array[] = [];
      response.on("data", (chunk: Uint8Array) => chunks.push(chunk));
      response.on("error", reject);
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString("utf8");
        resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) });
      });
    });
    sent.on("error", reject);
    sent.end(body);
  });
}

describe("the unclaimed-upload cap over HTTP", () => {
  it("lets two addresses share a form's cap: one that fills its share blocks no other", async () => {
    // A quarter of the cap per address (250 bytes): the largest upload, which each holds
    // while it streams.
    const env = await serverWith({ MAX_UNCLAIMED_UPLOAD_BYTES: "1000", MAX_UPLOAD_BYTES: "250" });
    try {
      const refusedOnly = (answers: { status: number; body: { error: string } }[]) => {
        for (const one of answers) {
          if (one.status === 200) continue;
          assert.equal(one.status, 413, JSON.stringify(one.body));
          assert.equal(one.body.error, "payload_too_large");
        }
        return answers.filter((one) => one.status === 200).length;
      };
      // The attack: as many of the largest files as the cap would hold, and more, at once.
      const attack = Array.from({ length: 8 }, () => uploadFrom(env, "127.0.0.2", 250));
      assert.equal(refusedOnly(await Promise.all(attack)), 1, "one address, one share");
      const other = await uploadFrom(env, "127.0.0.3", 250);
      assert.equal(other.status, 200, JSON.stringify(other.body));
      // Four more addresses at once: the form's cap still bounds them all (500 bytes left).
      const more = ["127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"];
      const crowd = await Promise.all(more.map((from) => uploadFrom(env, from, 250)));
      assert.equal(refusedOnly(crowd), 2);
      const files = await readdir(join(env.dataDir, "files", env.formId));
      assert.equal(files.filter((name) => !name.startsWith(".")).length, 4, "nothing refused kept");
    } finally {
      await env.close();
    }
  });
});
