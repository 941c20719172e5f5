/**
 * The BlobStore contract as runner-neutral cases: every adapter runs them unchanged (see
 * `src/ports/blob-store.ts`), signed links included, under `node:test` through
 * `runBlobStoreConformance` of `formwork/testing/node`, or under any runner.
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { BlobInfo } from "../ports/index.ts";
import { bodyOf, failingBody, generatedBody, measure, readText, textBody } from "./blob-bodies.ts";
import { type BlobFixture, type BlobStoreConformanceOptions, blobCase } from "./blob-fixture.ts";
import { signedLinkCases } from "./blob-link-conformance.ts";
import type { ConformanceCase } from "./conformance-case.ts";

export type { BlobStoreConformanceOptions } from "./blob-fixture.ts";

const info: BlobInfo = { contentType: "text/plain", filename: "notes.txt" };

// Blob names as the service makes them (attachment ids); each case has containers of its own.
const [one, two, three] = [randomUUID(), randomUUID(), randomUUID()];

/** A case of this file: its name and its body, made into a case per adapter below. */
type Def = [string, (fixture: BlobFixture) => Promise<void>];
const it = (name: string, body: Def[1]): Def => [name, body];

const cases: Def[] = [
  it("answers null for a blob or container that is not there", async ({ blobs, container }) => {
    const box = container();
    assert.equal(await blobs.get(box, randomUUID()), null);
    await blobs.put(box, one, textBody("x"), info);
    assert.equal(await blobs.get(box, randomUUID()), null);
  }),

  it("stores bytes and info, and returns the byte count", async ({ blobs, container }) => {
    const box = container();
    const bytes = Uint8Array.from({ length: 1000 }, (_, i) => (i * 7) % 256);
    assert.equal(await blobs.put(box, one, bodyOf(bytes), info), 1000);
    const blob = await blobs.get(box, one);
    assert.ok(blob);
    assert.deepEqual(blob.info, info);
    assert.deepEqual(new Uint8Array(await new Response(blob.body).arrayBuffer()), bytes);
  }),

  it("stores an empty blob", async ({ blobs, container }) => {
    const box = container();
    assert.equal(await blobs.put(box, one, bodyOf(new Uint8Array(0)), info), 0);
    assert.equal(await readText((await blobs.get(box, one))?.body ?? null), "");
  }),

  it("replaces a blob and its info", async ({ blobs, container }) => {
    const box = container();
    await blobs.put(box, one, textBody("first version"), info);
    const second = { contentType: "application/pdf", filename: "résumé ✓.pdf" };
    assert.equal(await blobs.put(box, one, textBody("second"), second), 6);
    const blob = await blobs.get(box, one);
    assert.deepEqual(blob?.info, second);
    assert.equal(await readText(blob?.body ?? null), "second");
  }),

  it("deletes a blob, and answers false when there is none", async ({ blobs, container }) => {
    const box = container();
    await blobs.put(box, one, textBody("x"), info);
    await blobs.put(box, two, textBody("y"), info);
    assert.equal(await blobs.delete(box, one), true);
    assert.equal(await blobs.get(box, one), null);
    assert.equal(await blobs.delete(box, one), false);
    assert.equal(await blobs.delete(container(), one), false);
    assert.equal(await readText((await blobs.get(box, two))?.body ?? null), "y");
  }),

  it("deletes a container with every blob in it and nothing else", async ({ blobs, container }) => {
    const [doomed, kept] = [container(), container()];
    await Promise.all([one, two, three].map((n) => blobs.put(doomed, n, textBody(n), info)));
    await blobs.put(kept, one, textBody("kept"), info);
    await blobs.deleteContainer(doomed);
    for (const n of [one, two, three]) assert.equal(await blobs.get(doomed, n), null);
    assert.equal(await readText((await blobs.get(kept, one))?.body ?? null), "kept");
    await blobs.deleteContainer(doomed);
    await blobs.deleteContainer(container());
  }),

  it("rejects with the body's error when it fails, leaving no blob", async ({
    blobs,
    container,
  }) => {
    const box = container();
    const boom = new Error("the client went away");
    await assert.rejects(blobs.put(box, one, failingBody(boom), info), (e) => e === boom);
    assert.equal(await blobs.get(box, one), null);
  }),

  it("keeps the previous blob when a replacing put fails", async ({ blobs, container }) => {
    const box = container();
    await blobs.put(box, one, textBody("before"), info);
    const boom = new Error("the client went away");
    const other = { contentType: "image/png", filename: "x.png" };
    await assert.rejects(blobs.put(box, one, failingBody(boom), other), (e) => e === boom);
    const blob = await blobs.get(box, one);
    assert.deepEqual(blob?.info, info);
    assert.equal(await readText(blob?.body ?? null), "before");
  }),

  it("streams a large blob in and out", async ({ blobs, container }) => {
    const box = container();
    const size = 20 * 1024 * 1024;
    const generated = generatedBody(size);
    assert.equal(await blobs.put(box, "big", generated.body, info), size);
    const blob = await blobs.get(box, "big");
    assert.ok(blob);
    assert.deepEqual(await measure(blob.body), { bytes: size, sha256: generated.sha256() });
  }),

  it("keeps concurrent puts to different names apart", async ({ blobs, container }) => {
    const box = container();
    const names = Array.from({ length: 12 }, (_, i) => `blob-${i}`);
    await Promise.all(names.map((n) => blobs.put(box, n, textBody(`body of ${n}`), info)));
    for (const n of names) {
      assert.equal(await readText((await blobs.get(box, n))?.body ?? null), `body of ${n}`);
    }
  }),
];

/** Every case of the BlobStore conformance suite for the adapter `options` describes. */
export function blobStoreConformanceCases(options: BlobStoreConformanceOptions): ConformanceCase[] {
  return [
    ...cases.map(([name, body]) => blobCase(options, name, body)),
    ...signedLinkCases(options),
  ];
}
