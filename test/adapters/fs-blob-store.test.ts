import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { mkdir, readdir, rm, stat, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { runBlobStoreConformance } from "../../src/testing/node-test.ts";
import {
  body,
  inAMinute,
  info,
  serve,
  signingSecret,
  storageUrl,
  store,
  tempDir,
} from "./fs-blob-fixture.ts";

runBlobStoreConformance({ name: "fs", create: () => store(), download: (url, b) => serve(b, url) });

describe("fs blob store", () => {
  it("signs HMAC-SHA256 over sv, se, sr, sp and the resource, joined by newlines", async () => {
    const blobs = await store();
    const expiresAt = new Date("2030-01-02T03:04:05.678Z");
    for (const [name, resource] of [
      ["b1", "/c1/b1"],
      [undefined, "/c1"],
    ] as const) {
      const query = new URLSearchParams((await blobs.signedQuery("c1", name, expiresAt)).slice(1));
      const sr = name ? "b" : "c";
      assert.deepEqual(
        [...query.keys()],
        ["sv", "se", "sr", "sp", "sig"],
        "parameters in Azure's order",
      );
      assert.equal(query.get("se"), "2030-01-02T03:04:05Z");
      const canonical = ["2026-11-01", "2030-01-02T03:04:05Z", sr, "r", resource].join("\n");
      const sig = createHmac("sha256", signingSecret).update(canonical).digest("base64");
      assert.equal(query.get("sig"), sig);
    }
  });

  it("refuses names that are not one plain segment, touching no file", async () => {
    const parent = await tempDir();
    const blobs = await store({ directory: join(parent, "data") });
    const bad = ["../x", "a/b", "..", ".", "", "%2e%2e", "a.b", "a\\b", "-a", ".partial"];
    for (const name of [...bad, "x".repeat(129)]) {
      for (const [c, n] of [
        [name, "ok"],
        ["ok", name],
      ] as const) {
        await assert.rejects(blobs.put(c, n, body("x"), info), /invalid (container|blob) name/);
        await assert.rejects(blobs.get(c, n), /invalid/);
        await assert.rejects(blobs.delete(c, n), /invalid/);
        await assert.rejects(blobs.signedQuery(c, n, inAMinute()), /invalid/);
        assert.throws(() => blobs.blobUrl(c, n), /invalid/);
      }
      await assert.rejects(blobs.deleteContainer(name), /invalid/);
      await assert.rejects(blobs.signedQuery(name, undefined, inAMinute()), /invalid/);
    }
    assert.deepEqual(await readdir(parent), []);
  });

  it("leaves no temporary file behind a failed put, and clears a crash's leftovers", async () => {
    const directory = await tempDir();
    await mkdir(join(directory, ".partial"), { recursive: true });
    await writeFile(join(directory, ".partial", "left-by-a-crash"), "x");
    await mkdir(join(directory, ".trash", "old-container"), { recursive: true });
    const blobs = await store({ directory });
    const failing = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.error(new Error("boom")),
    });
    await assert.rejects(blobs.put("c1", "b1", failing, info), /boom/);
    assert.deepEqual(await readdir(join(directory, ".partial")), []);
    assert.deepEqual(await readdir(join(directory, ".trash")), []);
    assert.deepEqual((await readdir(directory)).sort(), [".partial", ".trash"]);
  });

  it("names itself and cancels the body when the file cannot be written", async () => {
    const directory = await tempDir();
    const blobs = await store({ directory });
    await blobs.put("c1", "b0", body("x"), info);
    await rm(join(directory, ".partial"), { recursive: true });
    await writeFile(join(directory, ".partial"), "in the way");
    let cancelled: unknown;
    const pending = new ReadableStream<Uint8Array>({
      pull: (controller) => controller.enqueue(new Uint8Array(1024)),
      cancel: (reason) => {
        cancelled = reason;
      },
    });
    await assert.rejects(blobs.put("c1", "b1", pending, info), (error: Error) => {
      assert.match(error.message, /^fs blob store: cannot write /);
      assert.equal((error.cause as { code?: string }).code, "ENOTDIR");
      return true;
    });
    assert.ok(cancelled, "the body was cancelled");
    assert.equal(await blobs.get("c1", "b1"), null);
  });

  it("keeps blobs from other local users: folders 0700, files 0600", async () => {
    const directory = join(await tempDir(), "files");
    await mkdir(directory, { mode: 0o755 }); // as an older version left it
    const blobs = await store({ directory });
    await blobs.put("c1", "b1", body("personal data"), info);
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    assert.equal(await mode(directory), 0o700);
    assert.equal(await mode(join(directory, "c1")), 0o700);
    assert.equal(await mode(join(directory, "c1", "b1")), 0o600);
  });

  it("touches no file before the first write", async () => {
    const directory = join(await tempDir(), "not-yet");
    const blobs = await store({ directory });
    await blobs.signedQuery("c1", "b1", inAMinute());
    assert.equal(await blobs.get("c1", "b1"), null);
    assert.equal(await blobs.delete("c1", "b1"), false);
    await assert.rejects(readdir(directory), { code: "ENOENT" });
  });

  it("validates its options", () => {
    const options = { directory: "x", storageUrl, signingSecret };
    for (const bad of ["/storage", "http://localhost:3000", "http://h/", "http://h/s?x=1"]) {
      assert.throws(() => createFsBlobStore({ ...options, storageUrl: bad }), TypeError, bad);
    }
    for (const secret of ["", new Uint8Array(0)]) {
      assert.throws(() => createFsBlobStore({ ...options, signingSecret: secret }), RangeError);
    }
    // What a caller without types gets: a TypeError that names the option it forgot.
    const untyped = createFsBlobStore as (options: unknown) => unknown;
    for (const [option, value] of [
      ["signingSecret", undefined],
      ["signingSecret", [1, 2, 3]],
      ["storageUrl", undefined],
      ["directory", undefined],
      ["directory", ""],
      ["now", "yesterday"],
    ] as const) {
      const message = new RegExp(`^fs blob store: ${option} `);
      assert.throws(() => untyped({ ...options, [option]: value }), { name: "TypeError", message });
    }
    assert.throws(() => untyped(undefined), { name: "TypeError", message: /signingSecret/ });
    const slash = createFsBlobStore({ ...options, storageUrl: `${storageUrl}/` });
    assert.equal(slash.blobUrl("c1", "b1"), `${storageUrl}/c1/b1`);
  });
});
