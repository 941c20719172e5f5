import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryBlobStore, createMemoryStore } from "../adapters/memory/index.ts";
import { createFormService, type FormServiceOptions } from "../src/index.ts";
import type { Store } from "../src/ports/index.ts";
import { heldStore } from "./held-store.ts";
import { request } from "./helpers.ts";
import { storeKinds } from "./store-kinds.ts";

/** `inner`, whose reads (`get`) answer with `read()` while it is set. */
function breakable(inner: Store) {
  let read: (() => Promise<never>) | undefined;
  const store = new Proxy(inner, {
    get(target, name) {
      if (name === "get" && read) return read;
      const value = Reflect.get(target, name);
      return typeof value === "function" ? value.bind(target) : value;
    },
  });
  return {
    store,
    fail: () => {
      read = () => Promise.reject(new Error("disk gone"));
    },
    hang: () => {
      read = () => new Promise<never>(() => {});
    },
  };
}

/** `inner`, whose `close` does nothing: for a second service over a store the first closes. */
function keptOpen(inner: Store): Store {
  return new Proxy(inner, {
    get(target, name) {
      if (name === "close") return () => Promise.resolve();
      return Reflect.get(target, name);
    },
  });
}

function serviceOn(store: Store, options: Partial<FormServiceOptions> = {}) {
  return createFormService({
    store,
    blobs: createMemoryBlobStore(),
    readinessTimeoutMs: 200,
    ...options,
  });
}

describe("liveness and readiness", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`answers /healthz and /readyz 200 on ${name}, and /readyz 503 naming the store that fails`, async () => {
      const broken = breakable(await open());
      const service = serviceOn(broken.store, {
        // One request a minute: the probes never count.
        rateLimits: { publicPerMinute: 1, credentialPerMinute: 1 },
        // The Cosmos DB stand-in, on a loaded machine, answers a read in more than 200 ms
        // now and then: a healthy store must not fail on that.
        readinessTimeoutMs: 10_000,
      });
      // A second service on the same store, with a short timeout, for the store that hangs;
      // closing it leaves the store to the first.
      const quick = serviceOn(keptOpen(broken.store), { readinessTimeoutMs: 200 });
      try {
        for (let i = 0; i < 3; i += 1) {
          assert.deepEqual(await probe(service, "/healthz"), [200, { status: "ok" }]);
          assert.deepEqual(await probe(service, "/readyz"), [200, { status: "ready", failed: [] }]);
        }
        broken.fail();
        const down = [503, { status: "unavailable", failed: ["store"] }];
        assert.deepEqual(await probe(service, "/readyz"), down);
        broken.hang();
        const started = performance.now();
        assert.deepEqual(await probe(quick, "/readyz"), down);
        assert.ok(
          performance.now() - started < 2000,
          "a store that hangs fails within the timeout",
        );
        assert.deepEqual(await probe(quick, "/healthz"), [200, { status: "ok" }]);
        assert.deepEqual(await probe(service, "/healthz"), [200, { status: "ok" }]);
      } finally {
        await quick.close({ signal: AbortSignal.timeout(0) });
        await service.close({ signal: AbortSignal.timeout(0) });
      }
    });
  }

  it("names the blob store and the embedder's own checks that fail", async () => {
    const blobs = createMemoryBlobStore();
    const service = serviceOn(breakable(createMemoryStore()).store, {
      blobs: { ...blobs, get: () => Promise.reject(new Error("unreachable")) },
      readinessChecks: {
        queue: () => Promise.resolve(),
        search: () => Promise.reject(new Error("down")),
      },
    });
    assert.deepEqual(await probe(service, "/readyz"), [
      503,
      { status: "unavailable", failed: ["blobs", "search"] },
    ]);
    assert.deepEqual(await service.ready(), { status: "unavailable", failed: ["blobs", "search"] });
    await service.close();
  });

  it("answers /readyz 503 at once when a stop begins, /healthz 200 still, and other methods 405", async () => {
    const held = heldStore(createMemoryStore());
    const service = serviceOn(held.store, { adminSecret: "a" });
    const user = await service.admin.createAccount({ email: "a@example.com" });
    const hold = held.hold({ method: "get", collection: "tokens" });
    const running = request(service, "GET", "/api/restricted/user/form", { as: user as never });
    await hold.reached;
    const closing = service.close();
    assert.deepEqual(await probe(service, "/readyz"), [503, { status: "stopping", failed: [] }]);
    assert.deepEqual(await probe(service, "/healthz"), [200, { status: "ok" }]);
    const post = await service.fetch(new Request("http://localhost/healthz", { method: "POST" }));
    assert.equal(post.status, 405);
    assert.equal(post.headers.get("allow"), "GET");
    hold.release();
    assert.equal((await running).status, 200);
    assert.deepEqual(await closing, { cutOff: [] });
  });

  it("lists the requests a stop cut off by route pattern once its signal aborts", async () => {
    const broken = breakable(createMemoryStore());
    const service = serviceOn(broken.store);
    broken.hang();
    const stuck = service.fetch(
      new Request("http://localhost/api/form/3f1e0d7c-1f1a-4c2b-9d7e-0a1b2c3d4e5f"),
    );
    const deadline = new AbortController();
    setTimeout(() => deadline.abort(), 50);
    const report = await service.close({ signal: deadline.signal });
    assert.deepEqual(report, { cutOff: [{ method: "GET", route: "/api/form/:formId" }] });
    void stuck;
  });
});

async function probe(service: ReturnType<typeof createFormService>, path: string) {
  const { status, body } = await request(service, "GET", path);
  return [status, body];
}
