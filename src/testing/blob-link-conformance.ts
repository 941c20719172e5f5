import assert from "node:assert/strict";
import { it } from "node:test";
import type { BlobInfo, BlobStore } from "../ports/blob-store.ts";
import { textBody } from "./blob-bodies.ts";
import type { BlobFixture } from "./blob-store-conformance.ts";

const info: BlobInfo = { contentType: "text/plain", filename: "report.txt" };
const inAMinute = () => new Date(Date.now() + 60_000);

/**
 * The signed-link cases of the BlobStore conformance suite: the shape of `signedQuery`, and
 * what a download through `blobUrl` + query answers, forged or genuine.
 */
export function signedLinkCases(
  fresh: () => Promise<BlobFixture>,
  download: (url: string, blobs: BlobStore) => Promise<Response>,
): void {
  /** Downloads, reads the body (so no stream stays open) and answers status and text. */
  const get = async (blobs: BlobStore, url: string) => {
    const response = await download(url, blobs);
    return { response, status: response.status, text: await response.text() };
  };

  it("signs a query string of sv, se, sr, sp and sig, for a blob or a container", async () => {
    const { blobs, container } = await fresh();
    const box = container();
    const expiresAt = new Date("2031-02-03T04:05:06.789Z");
    const blob = await blobs.signedQuery(box, "a", expiresAt);
    const whole = await blobs.signedQuery(box, undefined, expiresAt);
    for (const [query, scope] of [
      [blob, "b"],
      [whole, "c"],
    ] as const) {
      assert.match(query, /^\?/);
      const params = new URLSearchParams(query.slice(1));
      for (const key of ["sv", "se", "sr", "sp", "sig"]) assert.ok(params.get(key), key);
      assert.equal(params.get("sr"), scope);
      assert.match(params.get("sp") ?? "", /r/);
      const expiry = Date.parse(params.get("se") ?? "");
      assert.ok(Math.abs(expiry - expiresAt.getTime()) < 1000, params.get("se") ?? "");
    }
  });

  it("downloads a blob through its signed URL", async () => {
    const { blobs, container } = await fresh();
    const box = container();
    await blobs.put(box, "a", textBody("the bytes"), info);
    const { response, status, text } = await get(
      blobs,
      blobs.blobUrl(box, "a") + (await blobs.signedQuery(box, "a", inAMinute())),
    );
    assert.equal(status, 200);
    assert.equal(text, "the bytes");
    assert.equal(response.headers.get("content-type"), info.contentType);
    assert.match(response.headers.get("content-disposition") ?? "", /^attachment;.*report\.txt/);
  });

  it("downloads any blob of a container through the container's query", async () => {
    const { blobs, container } = await fresh();
    const box = container();
    await blobs.put(box, "a", textBody("first"), info);
    await blobs.put(box, "b", textBody("second"), info);
    const query = await blobs.signedQuery(box, undefined, inAMinute());
    for (const [name, text] of [
      ["a", "first"],
      ["b", "second"],
    ] as const) {
      const answer = await get(blobs, blobs.blobUrl(box, name) + query);
      assert.deepEqual([answer.status, answer.text], [200, text]);
    }
    assert.equal((await get(blobs, blobs.blobUrl(box, "missing") + query)).status, 404);
  });

  it("refuses a tampered signature", async () => {
    const { blobs, container } = await fresh();
    const box = container();
    await blobs.put(box, "a", textBody("x"), info);
    const query = new URLSearchParams((await blobs.signedQuery(box, "a", inAMinute())).slice(1));
    const sig = query.get("sig") ?? "";
    query.set("sig", (sig[0] === "A" ? "B" : "A") + sig.slice(1));
    assert.equal((await get(blobs, `${blobs.blobUrl(box, "a")}?${query}`)).status, 403);
  });

  it("refuses an expired link", async () => {
    const { blobs, container } = await fresh();
    const box = container();
    await blobs.put(box, "a", textBody("x"), info);
    const past = new Date(Date.now() - 60_000);
    const url = blobs.blobUrl(box, "a") + (await blobs.signedQuery(box, "a", past));
    assert.equal((await get(blobs, url)).status, 403);
    const query = await blobs.signedQuery(box, undefined, past);
    assert.equal((await get(blobs, blobs.blobUrl(box, "a") + query)).status, 403);
  });

  it("refuses a blob's link for another blob, or rescoped to its container", async () => {
    const { blobs, container } = await fresh();
    const box = container();
    await blobs.put(box, "a", textBody("x"), info);
    await blobs.put(box, "b", textBody("y"), info);
    const query = await blobs.signedQuery(box, "a", inAMinute());
    assert.equal((await get(blobs, blobs.blobUrl(box, "b") + query)).status, 403);
    assert.equal(
      (await get(blobs, blobs.blobUrl(box, "a") + query.replace("sr=b", "sr=c"))).status,
      403,
    );
  });

  it("refuses a container's link for another container", async () => {
    const { blobs, container } = await fresh();
    const [mine, theirs] = [container(), container()];
    await blobs.put(mine, "a", textBody("x"), info);
    await blobs.put(theirs, "a", textBody("y"), info);
    const query = await blobs.signedQuery(mine, undefined, inAMinute());
    assert.equal((await get(blobs, blobs.blobUrl(theirs, "a") + query)).status, 403);
  });

  it("refuses a download without a signature", async () => {
    const { blobs, container } = await fresh();
    const box = container();
    await blobs.put(box, "a", textBody("x"), info);
    // Azure answers an anonymous read 404 or 409 (ResourceNotFound, PublicAccessNotPermitted).
    assert.ok([401, 403, 404, 409].includes((await get(blobs, blobs.blobUrl(box, "a"))).status));
  });
}
