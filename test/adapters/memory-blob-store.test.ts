import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { createMemoryBlobStore, createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import type { BlobStore } from "../../src/ports/index.ts";
import { runBlobStoreConformance } from "../../src/testing/node-test.ts";

const services = new WeakMap<BlobStore, FormService>();
const started: FormService[] = [];
after(() => Promise.all(started.map((service) => service.close())));

/** What a browser gets for `url` from a service over `blobs`: the store's download or refusal. */
function download(url: string, blobs: BlobStore): Promise<Response> {
  let service = services.get(blobs);
  if (!service) {
    service = createFormService({ store: createMemoryStore(), blobs, sweepIntervalMs: 0 });
    services.set(blobs, service);
    started.push(service);
  }
  return service.fetch(new Request(url));
}

runBlobStoreConformance({ name: "memory", create: async () => createMemoryBlobStore(), download });

describe("memory blob store", () => {
  const info = { contentType: "text/plain", filename: "notes.txt" };
  const body = (text: string) => new Response(text).body as ReadableStream<Uint8Array>;

  it("serves its links under storageUrl, HEAD included, and nothing outside it", async () => {
    const blobs = createMemoryBlobStore({ storageUrl: "http://localhost/forms/files/" });
    const serve = (url: string, method = "GET") =>
      (blobs.fetch as NonNullable<BlobStore["fetch"]>)(new Request(url, { method }));
    await blobs.put("c1", "b1", body("hello"), info);
    const url = blobs.blobUrl("c1", "b1");
    assert.equal(url, "http://localhost/forms/files/c1/b1");
    const query = await blobs.signedQuery("c1", "b1", new Date(Date.now() + 60_000));
    const head = await serve(url + query, "HEAD");
    assert.equal(head?.status, 200);
    assert.equal(head?.headers.get("content-length"), "5");
    assert.equal(head?.body, null);
    assert.equal(await serve(`http://localhost/forms/api/x${query}`), null);
    await assert.rejects(serve(url + query, "POST"), { reason: "method_not_allowed" });
  });

  it("keeps its own copy of what a put is given", async () => {
    const blobs = createMemoryBlobStore();
    const bytes = new TextEncoder().encode("before");
    const given = { ...info };
    await blobs.put("c1", "b1", new Response(bytes).body as ReadableStream<Uint8Array>, given);
    bytes.fill(0);
    given.filename = "changed.txt";
    const blob = await blobs.get("c1", "b1");
    assert.deepEqual(blob?.info, info);
    assert.equal(await new Response(blob?.body).text(), "before");
  });

  it("validates its options", () => {
    for (const storageUrl of ["/storage", "http://localhost", "http://h/", "http://h/s?x=1"]) {
      assert.throws(() => createMemoryBlobStore({ storageUrl }), TypeError, storageUrl);
    }
    const untyped = createMemoryBlobStore as (options: unknown) => unknown;
    assert.throws(() => untyped({ now: "yesterday" }), /memory blob store: now /);
  });
});
