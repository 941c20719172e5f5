import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { parse as parseDisposition } from "content-disposition";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import {
  body,
  inAMinute,
  info,
  serve,
  sign,
  signingSecret,
  statusOf,
  storageUrl,
  store,
  tempDir,
} from "./fs-blob-fixture.ts";

/** A blob link for `resource` signed with the store's real key, whatever its expiry. */
function signWithTheKey(resource: string, se: string): URLSearchParams {
  const canonical = ["2026-11-01", se, "b", "r", resource].join("\n");
  const sig = createHmac("sha256", signingSecret).update(canonical).digest("base64");
  return new URLSearchParams({ sv: "2026-11-01", se, sr: "b", sp: "r", sig });
}

describe("fs blob store downloads", () => {
  it("serves nothing outside its folder, whatever the URL", async () => {
    const parent = await tempDir();
    const blobs = await store({ directory: join(parent, "data") });
    await blobs.put("c1", "b1", body("inside"), info);
    await writeFile(join(parent, "secret"), "outside");
    const query = await blobs.signedQuery("c1", undefined, inAMinute());
    for (const path of ["/../secret", "/%2e%2e/secret", "/c1/%2e%2e/%2e%2e/secret"]) {
      assert.equal(await blobs.fetch?.(new Request(storageUrl + path + query)), null, path);
    }
    const crafted = ["/c1%2F..%2F..%2Fsecret/b1", "/c1/..%2F..%2Fsecret", "/c1/b1%2Fx", "/c1/b1/x"];
    for (const path of [...crafted, "/.partial/b1", "/c1", "", "/", "/c1/", "/c1/b1.info"]) {
      assert.equal((await serve(blobs, storageUrl + path + query)).status, 404, path);
    }
    // Even a link genuinely signed for a path trick opens nothing.
    const url = `${storageUrl}/..%2Fsecret/x?${signWithTheKey("/../secret", "2099-01-01T00:00:00Z")}`;
    assert.equal((await serve(blobs, url)).status, 404);
  });

  it("answers null for paths outside the storage URL", async () => {
    const blobs = await store();
    for (const url of ["http://localhost:3000/api/x", `${storageUrl}x/c1/b1`, "http://h/stor"]) {
      assert.equal(await blobs.fetch?.(new Request(url)), null, url);
    }
  });

  it("offers downloads as attachments with a sanitised name, never sniffed or cached", async () => {
    const blobs = await store();
    const evil = { contentType: "text/html", filename: 'evil"; x.html\r\n' };
    await blobs.put("c1", "b1", body("<script>alert(1)</script>"), evil);
    const response = await serve(blobs, blobs.blobUrl("c1", "b1") + (await sign(blobs)));
    assert.equal(response.status, 200);
    const disposition = response.headers.get("content-disposition") ?? "";
    assert.equal(disposition, 'attachment; filename="evil\\"; x.html"');
    assert.deepEqual(
      { ...parseDisposition(disposition).parameters },
      { filename: 'evil"; x.html' },
    );
    assert.equal(response.headers.get("x-content-type-options"), "nosniff");
    assert.equal(response.headers.get("cache-control"), "private, no-store");
    assert.equal(response.headers.get("content-type"), "text/html");
    assert.equal(response.headers.get("content-length"), "25");
    assert.equal(await response.text(), "<script>alert(1)</script>");
  });

  it("keeps path separators, control characters and bad types out of the headers", async () => {
    const blobs = await store();
    const cases = [
      [{ contentType: "text/plain\r\nx-evil: 1", filename: "a/b\\c\u0000.txt" }, "a_b_c.txt"],
      [{ contentType: "", filename: " \r\n " }, "b1"],
      [{ contentType: "image/png", filename: "résumé.png" }, "résumé.png"],
    ] as const;
    for (const [stored, filename] of cases) {
      await blobs.put("c1", "b1", body("x"), stored);
      const response = await serve(blobs, blobs.blobUrl("c1", "b1") + (await sign(blobs)));
      await response.text();
      const disposition = parseDisposition(response.headers.get("content-disposition") ?? "");
      assert.equal(disposition.type, "attachment");
      assert.equal(disposition.parameters.filename, filename);
      const type = stored.contentType === "image/png" ? "image/png" : "application/octet-stream";
      assert.equal(response.headers.get("content-type"), type);
      assert.equal(response.headers.get("x-evil"), null);
    }
  });

  it("answers HEAD with the headers only", async () => {
    const blobs = await store();
    await blobs.put("c1", "b1", body("12345"), info);
    const url = blobs.blobUrl("c1", "b1") + (await sign(blobs));
    const response = await serve(blobs, url, { method: "HEAD" });
    assert.equal(response.status, 200);
    assert.equal(response.headers.get("content-length"), "5");
    assert.equal(await response.text(), "");
  });

  it("answers 405 with the envelope for any other method", async () => {
    const blobs = await store();
    await blobs.put("c1", "b1", body("x"), info);
    const url = blobs.blobUrl("c1", "b1") + (await sign(blobs));
    for (const method of ["POST", "PUT", "DELETE"]) {
      const response = await serve(blobs, url, { method, body: method === "DELETE" ? null : "x" });
      assert.equal(response.status, 405);
      assert.equal(response.headers.get("allow"), "GET, HEAD");
      assert.equal((await response.json()).error, "method_not_allowed");
    }
    const kept = await blobs.get("c1", "b1");
    await kept?.body.cancel();
    assert.equal(kept?.info.filename, "notes.txt");
  });

  it("refuses links with a missing, unknown or altered parameter (403 envelope)", async () => {
    const blobs = await store();
    await blobs.put("c1", "b1", body("x"), info);
    const good = (await sign(blobs)).slice(1);
    const variants: [string, string | null][] = [
      ["sv", null],
      ["se", null],
      ["sr", null],
      ["sp", null],
      ["sig", null],
      ["sv", "2025-01-05"],
      ["sp", "w"],
      ["sp", "rw"],
      ["sr", "x"],
      ["se", "2099-01-01"],
      ["se", "2099-01-01T00:00:00Z"],
    ];
    for (const [key, value] of variants) {
      const query = new URLSearchParams(good);
      if (value === null) query.delete(key);
      else query.set(key, value);
      const response = await serve(blobs, `${blobs.blobUrl("c1", "b1")}?${query}`);
      assert.equal(response.status, 403, `${key}=${value}`);
      assert.match(response.headers.get("content-type") ?? "", /^application\/json/);
      assert.deepEqual(await response.json(), {
        id: "",
        message: "This link is not valid",
        action_successful: false,
        error: "forbidden",
      });
    }
  });

  it("judges expiry by its clock, to the second", async () => {
    let now = new Date("2030-05-06T07:08:09.000Z");
    const blobs = await store({ now: () => now });
    await blobs.put("c1", "b1", body("x"), info);
    const url =
      blobs.blobUrl("c1", "b1") +
      (await blobs.signedQuery("c1", "b1", new Date(now.getTime() + 10_500)));
    assert.equal(await statusOf(blobs, url), 200);
    now = new Date(now.getTime() + 9_999);
    assert.equal(await statusOf(blobs, url), 200);
    now = new Date(now.getTime() + 1);
    const expired = await serve(blobs, url);
    assert.equal(expired.status, 403);
    assert.equal((await expired.json()).message, "This link has expired");
  });

  it("refuses a genuine link that lives longer than the cap (7 days by default)", async () => {
    const blobs = await store();
    await blobs.put("c1", "b1", body("x"), info);
    // Signed with the real key, as a leaked key or a bad setting would: it must not work.
    const query = signWithTheKey("/c1/b1", "2099-01-01T00:00:00Z");
    const farFuture = await serve(blobs, `${blobs.blobUrl("c1", "b1")}?${query}`);
    assert.equal(farFuture.status, 403);
    assert.equal((await farFuture.json()).message, "This link lives longer than this store allows");
    const week = 7 * 24 * 60 * 60 * 1000;
    const inAWeek = await blobs.signedQuery("c1", "b1", new Date(Date.now() + week - 60_000));
    assert.equal(await statusOf(blobs, blobs.blobUrl("c1", "b1") + inAWeek), 200);
    const pastTheCap = await blobs.signedQuery("c1", "b1", new Date(Date.now() + week + 60_000));
    assert.equal(await statusOf(blobs, blobs.blobUrl("c1", "b1") + pastTheCap), 403);
    const short = await store({ maxLinkLifetimeSeconds: 30 });
    await short.put("c1", "b1", body("x"), info);
    const minute = short.blobUrl("c1", "b1") + (await short.signedQuery("c1", "b1", inAMinute()));
    assert.equal(await statusOf(short, minute), 403);
    assert.throws(
      () =>
        createFsBlobStore({ directory: "d", storageUrl, signingSecret, maxLinkLifetimeSeconds: 0 }),
      /maxLinkLifetimeSeconds/,
    );
  });

  it("answers 404 with the envelope for a genuine link to a missing blob", async () => {
    const blobs = await store();
    const response = await serve(blobs, blobs.blobUrl("c1", "gone") + (await sign(blobs, "gone")));
    assert.equal(response.status, 404);
    assert.deepEqual(await response.json(), {
      id: "",
      message: "No such file",
      action_successful: false,
      error: "not_found",
    });
  });
});
