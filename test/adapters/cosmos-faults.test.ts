import assert from "node:assert/strict";
import { createServer, type Server } from "node:net";
import { after, describe, it } from "node:test";
import { type CosmosStoreOptions, createCosmosStore } from "../../adapters/cosmos/index.ts";
import { StoreUnavailableError } from "../../src/ports/index.ts";
import { countKinds, startCosmosEmulator } from "../emulators/cosmos.ts";

const emulator = await startCosmosEmulator();
// Every store here shares one database and container: each test uses ids of its own.

/** A store that makes its own client, as production does, against `endpoint`. */
function connect(endpoint: string, options: Partial<CosmosStoreOptions> = {}) {
  const store = createCosmosStore({
    endpoint,
    key: emulator.key,
    agent: emulator.agent,
    databaseId: "faults",
    createIfMissing: true,
    endpointDiscovery: false,
    ...options,
  });
  after(() => store.close());
  return store;
}

const unavailable = (error: unknown) =>
  error instanceof StoreUnavailableError && /^cosmos store: /.test(error.message);

describe("cosmos store faults", () => {
  it("retries throttled requests within the SDK's bound", async () => {
    const store = connect(emulator.endpoint);
    await store.create("things", "p", { id: "warm" });
    emulator.requests.length = 0;
    emulator.failNext(2, 429);
    await store.create("things", "p", { id: "a" });
    assert.deepEqual(countKinds(emulator.requests), { create: 3 });
  });

  it("answers 503 when throttling outlasts the retries", async () => {
    const store = connect(emulator.endpoint, { maxThrottleRetries: 2 });
    await store.get("things", "p", "warm");
    emulator.requests.length = 0;
    emulator.failNext(3, 429);
    await assert.rejects(store.get("things", "p", "a"), unavailable);
    assert.deepEqual(countKinds(emulator.requests), { read: 3 });
  });

  it("reads again after a transient 503, and answers 503 when it persists", async () => {
    const store = connect(emulator.endpoint);
    await store.create("things", "p", { id: "c" });
    emulator.requests.length = 0;
    emulator.failNext(1, 503);
    assert.ok(await store.get("things", "p", "c"));
    assert.deepEqual(countKinds(emulator.requests), { read: 2 });
    emulator.requests.length = 0;
    // Each attempt of a query page is the query alone: no query plan (query-plan.ts).
    emulator.failNext(3, 503);
    await assert.rejects(store.query("things", "p"), unavailable);
    assert.deepEqual(countKinds(emulator.requests), { query: 3 });
  });

  it("does not send a write twice after a 503, which may have been applied", async () => {
    const store = connect(emulator.endpoint);
    await store.get("things", "p", "warm");
    emulator.requests.length = 0;
    emulator.failNext(1, 503);
    await assert.rejects(store.create("things", "p", { id: "b" }), unavailable);
    assert.deepEqual(countKinds(emulator.requests), { create: 1 });
  });

  it("answers 503 quickly when nothing listens at the endpoint", async () => {
    const port = await closedPort();
    for (const endpointDiscovery of [false, true]) {
      const store = connect(`https://127.0.0.1:${port}`, { endpointDiscovery });
      const started = Date.now();
      await assert.rejects(store.get("things", "p", "a"), unavailable);
      assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    }
  });

  it("answers 503 within the request timeout when the endpoint never answers", async () => {
    const silent = await listen(createServer(() => {}));
    const port = (silent.address() as { port: number }).port;
    const store = connect(`https://127.0.0.1:${port}`, { requestTimeoutMs: 300 });
    const started = Date.now();
    await assert.rejects(store.create("things", "p", { id: "a" }), unavailable);
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
  });
});

async function listen(server: Server): Promise<Server> {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  after(() => {
    server.close();
  });
  return server;
}

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
