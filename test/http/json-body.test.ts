import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:http";
import { after, before, describe, it } from "node:test";
import { getRequestListener } from "@hono/node-server";
import { readJson } from "../../src/http/body.ts";
import { BodyAbortedError, ServiceError } from "../../src/kernel/errors.ts";

const limit = 64;

/** What the server's `readJson` came to for each request, by its `x-case` header. */
const outcomes = new Map<string, Promise<unknown>>();

/** Answers the status `readJson` leads to and, for a body read, the value as JSON. */
async function handle(incoming: Request): Promise<Response> {
  const read = readJson(incoming, limit);
  outcomes.set(incoming.headers.get("x-case") ?? "", read);
  try {
    return Response.json({ value: (await read) ?? null });
  } catch (error) {
    const status = error instanceof ServiceError ? error.status : 500;
    return Response.json({ error: (error as Error).name }, { status });
  }
}

/** Sends `chunks` as the body; with `length` as Content-Length, else chunked. */
function send(base: string, name: string, chunks: Buffer[], length?: number) {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const headers: Record<string, string> = { "content-type": "application/json", "x-case": name };
    if (length !== undefined) headers["content-length"] = String(length);
    const req = request(`${base}/`, { method: "POST", headers }, (response) => {
      let body = "";
      response.on("data", (chunk) => {
        body += chunk;
      });
      response.on("end", () => resolve({ status: response.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    for (const chunk of chunks) req.write(chunk);
    req.end();
  });
}

describe("JSON request bodies over a real Node server", () => {
  let server: Server;
  let base = "";
  before(async () => {
    server = createServer(getRequestListener(handle));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const address = server.address();
    assert.ok(address && typeof address === "object");
    base = `http://127.0.0.1:${address.port}`;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it("reads a body of a declared length, and a chunked one, alike", async () => {
    const body = Buffer.from(JSON.stringify({ a: [1, "é"] }));
    for (const length of [body.length, undefined]) {
      const answer = await send(
        base,
        `ok-${length}`,
        [body.subarray(0, 5), body.subarray(5)],
        length,
      );
      assert.equal(answer.status, 200, answer.body);
      assert.deepEqual(JSON.parse(answer.body), { value: { a: [1, "é"] } });
    }
  });

  it("answers 413 past the limit, declared or chunked, and 400 for bytes that are not UTF-8", async () => {
    const big = Buffer.from(JSON.stringify({ a: "x".repeat(limit) }));
    assert.equal((await send(base, "big-declared", [big], big.length)).status, 413);
    assert.equal((await send(base, "big-chunked", [big])).status, 413);
    const bad = Buffer.from([0x22, 0xff, 0x22]);
    assert.equal((await send(base, "bad-declared", [bad], bad.length)).status, 400);
    assert.equal((await send(base, "bad-chunked", [bad])).status, 400);
  });

  it("fails a declared-length body the client stops short with BodyAbortedError", async () => {
    const req = request(`${base}/`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": "40", "x-case": "short" },
    });
    req.on("error", () => {});
    req.write('{"a":');
    // Wait until the server has begun to read, then hang up mid-body.
    while (!outcomes.has("short")) await new Promise((resolve) => setTimeout(resolve, 5));
    req.destroy();
    await assert.rejects(outcomes.get("short") as Promise<unknown>, BodyAbortedError);
  });
});
