/**
 * A full disk during S3 answers 503 `service_unavailable`, not 500: the fs blob store turns
 * the kernel's ENOSPC into `StoreUnavailableError`, the upload's hold is released (the form's
 * unclaimed count and the owner's storage are as before) and no partial file stays.
 *
 * The disk is full for real without mounting a tmpfs (which needs a mount namespace that CI
 * machines often refuse): every file the blob store opens in its `.partial` folder is created
 * as usual, but the descriptor it writes to is one of `/dev/full`, whose every write fails
 * with the kernel's own ENOSPC.
 */
import assert from "node:assert/strict";
import fs from "node:fs";
import { readdir } from "node:fs/promises";
import { join, sep } from "node:path";
import { describe, it, mock } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { StoreUnavailableError } from "../../src/ports/index.ts";
import { queryAll } from "../../src/ports/query-all.ts";
import { upload, withFiles } from "./setup.ts";

/** Until the returned function is called, the files opened under `folder` write to /dev/full. */
function fillDiskUnder(folder: string): () => void {
  const open = fs.open;
  const opened = mock.method(fs, "open", ((path: fs.PathLike, ...rest: unknown[]) => {
    const done = rest.pop() as (error: Error | null, fd?: number) => void;
    if (!String(path).startsWith(`${folder}${sep}`)) {
      return (open as (...args: unknown[]) => void)(path, ...rest, done);
    }
    // The file itself is created, as a real write would leave it, and then written through
    // a descriptor of the full device.
    (open as (...args: unknown[]) => void)(path, ...rest, (error: Error | null, fd?: number) => {
      if (error || fd === undefined) return done(error);
      fs.close(fd, () => open("/dev/full", "w", done));
    });
  }) as typeof fs.open);
  return () => opened.mock.restore();
}

async function files(folder: string): Promise<string[]> {
  const entries = await readdir(folder, { recursive: true, withFileTypes: true });
  return entries.filter((entry) => entry.isFile()).map((entry) => entry.name);
}

describe("S3 on a full disk", () => {
  it("answers 503, releases the upload's hold and leaves no file", async () => {
    const store = createMemoryStore();
    const env = await withFiles({ store });
    const counter = async () =>
      (
        await store.get<{ id: string; counts: Record<string, number> }>(
          "form_counters",
          env.formId,
          env.formId,
        )
      )?.record.counts;
    const kept = await upload(env, { bytes: "kept" });
    assert.equal(kept.status, 200);
    const counts = await counter();
    const attachments = async () =>
      (await queryAll(store, "attachments", env.formId)).map((record) => record.id);
    assert.deepEqual(await attachments(), [kept.body.id]);
    const before = await files(env.directory);

    const restore = fillDiskUnder(join(env.directory, ".partial"));
    let refused: Awaited<ReturnType<typeof upload>>;
    try {
      refused = await upload(env, { bytes: "x".repeat(900) });
    } finally {
      restore();
    }
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.deepEqual(refused.body, {
      id: "",
      message: "Storage is unavailable at the moment; please try again shortly",
      action_successful: false,
      error: "service_unavailable",
    });
    assert.deepEqual(await counter(), counts);
    assert.deepEqual(await attachments(), [kept.body.id]);
    assert.deepEqual(await files(env.directory), before);

    // Once the disk has room again, uploads go through.
    assert.equal((await upload(env, { bytes: "after" })).status, 200);
  });

  it("the fs blob store throws StoreUnavailableError naming the disk's error", async () => {
    const env = await withFiles();
    const restore = fillDiskUnder(join(env.directory, ".partial"));
    try {
      await assert.rejects(
        env.blobs.put("c", "b", new Blob(["bytes"]).stream(), {
          contentType: "text/plain",
          filename: "b.txt",
        }),
        (error: unknown) => {
          assert.ok(error instanceof StoreUnavailableError, String(error));
          assert.match(error.message, /^fs blob store: cannot write /);
          assert.equal((error.cause as { code?: string }).code, "ENOSPC");
          return true;
        },
      );
    } finally {
      restore();
    }
    assert.deepEqual(await files(env.directory), []);
  });
});
