/**
 * The signed-link cases of the BlobStore conformance suite, by behaviour only: a link reads
 * the bytes, a tampered, expired, unsigned or misapplied one is refused. Nothing here knows
 * how a link is signed (Azure's `sv`/`sig` or S3's `X-Amz-Signature` alike).
 */
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import type { BlobInfo } from "../ports/index.ts";
import { textBody } from "./blob-bodies.ts";
import { type BlobFixture, type BlobStoreConformanceOptions, blobCase } from "./blob-fixture.ts";
import type { ConformanceCase } from "./conformance-case.ts";

const info: BlobInfo = { contentType: "text/plain", filename: "report.txt" };
const inAMinute = () => new Date(Date.now() + 60_000);

/** Whether a download was refused: a 4xx answer (403 for a bad signature, 400 if malformed). */
const refused = (status: number) => status >= 400 && status < 500;

/**
 * Every way to tamper with one query string: each parameter's value with its first
 * character changed in turn. A sound signature covers them all.
 */
function tamperings(query: string): string[] {
  const params = [...new URLSearchParams(query.slice(1))];
  return params.map(([key, value]) => {
    const changed = new URLSearchParams(params);
    const first = value[0] === "A" ? "B" : "A";
    changed.set(key, first + value.slice(1));
    return `?${changed}`;
  });
}

/** Downloads, reads the body (so no stream stays open) and answers status and text. */
async function get(download: BlobFixture["download"], url: string) {
  const response = await download(url);
  return { response, status: response.status, text: await response.text() };
}

/** A case of this file: its name and its body, made into a case per adapter below. */
type Def = [string, (fixture: BlobFixture) => Promise<void>];
const it = (name: string, body: Def[1]): Def => [name, body];

const cases: Def[] = [
  it("downloads a blob through its signed URL", async ({ blobs, container, download }) => {
    const [box, name] = [container(), randomUUID()];
    await blobs.put(box, name, textBody("the bytes"), info);
    const query = await blobs.signedQuery(box, name, inAMinute());
    assert.match(query, /^\?./, "a query string to append to blobUrl");
    const { response, status, text } = await get(download, blobs.blobUrl(box, name) + query);
    assert.equal(status, 200);
    assert.equal(text, "the bytes");
    assert.equal(response.headers.get("content-type"), info.contentType);
    assert.match(response.headers.get("content-disposition") ?? "", /^attachment;.*report\.txt/);
  }),

  it("downloads any blob of a container through the container's link", async ({
    blobs,
    container,
    download,
  }) => {
    const box = container();
    const [first, second] = [randomUUID(), randomUUID()];
    await blobs.put(box, first, textBody("first"), info);
    await blobs.put(box, second, textBody("second"), info);
    const query = await blobs.signedQuery(box, undefined, inAMinute());
    for (const [name, text] of [
      [first, "first"],
      [second, "second"],
    ] as const) {
      const answer = await get(download, blobs.blobUrl(box, name) + query);
      assert.deepEqual([answer.status, answer.text], [200, text]);
    }
    assert.equal((await get(download, blobs.blobUrl(box, randomUUID()) + query)).status, 404);
  }),

  it("refuses a link with any part of it tampered with", async ({ blobs, container, download }) => {
    const [box, name] = [container(), randomUUID()];
    await blobs.put(box, name, textBody("secret"), info);
    for (const scope of [name, undefined]) {
      const query = await blobs.signedQuery(box, scope, inAMinute());
      for (const tampered of tamperings(query)) {
        const answer = await get(download, blobs.blobUrl(box, name) + tampered);
        assert.ok(refused(answer.status), `${answer.status} for ${tampered}`);
        assert.notEqual(answer.text, "secret");
      }
    }
  }),

  it("refuses an expired link", async ({ blobs, container, download }) => {
    const [box, name] = [container(), randomUUID()];
    await blobs.put(box, name, textBody("x"), info);
    const past = new Date(Date.now() - 60_000);
    for (const scope of [name, undefined]) {
      const url = blobs.blobUrl(box, name) + (await blobs.signedQuery(box, scope, past));
      assert.ok(refused((await get(download, url)).status), url);
    }
  }),

  it("refuses a blob's link for another blob", async ({ blobs, container, download }) => {
    const box = container();
    const [mine, other] = [randomUUID(), randomUUID()];
    await blobs.put(box, mine, textBody("x"), info);
    await blobs.put(box, other, textBody("y"), info);
    const query = await blobs.signedQuery(box, mine, inAMinute());
    assert.ok(refused((await get(download, blobs.blobUrl(box, other) + query)).status));
  }),

  it("refuses a container's link for another container", async ({ blobs, container, download }) => {
    const [mine, theirs] = [container(), container()];
    const name = randomUUID();
    await blobs.put(mine, name, textBody("x"), info);
    await blobs.put(theirs, name, textBody("y"), info);
    const query = await blobs.signedQuery(mine, undefined, inAMinute());
    assert.ok(refused((await get(download, blobs.blobUrl(theirs, name) + query)).status));
  }),

  it("refuses a download without a signature", async ({ blobs, container, download }) => {
    const [box, name] = [container(), randomUUID()];
    await blobs.put(box, name, textBody("x"), info);
    // Azure answers an anonymous read 404 or 409 (ResourceNotFound, PublicAccessNotPermitted).
    assert.ok(refused((await get(download, blobs.blobUrl(box, name))).status));
  }),
];

/** The signed-link cases. */
export function signedLinkCases(options: BlobStoreConformanceOptions): ConformanceCase[] {
  return cases.map(([name, body]) => blobCase(options, name, body));
}
