/**
 * `copyStore` (src/copy/store-copy.ts, docs/design.md §24) between real adapters: every record
 * with its file, a second run that finds everything there, a run cut short and finished, a
 * file the source lacks, a target that holds more, and a failure that stops the copy.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createMemoryBlobStore, createMemoryStore } from "../../adapters/memory/index.ts";
import { type CopyProgress, copyStore } from "../../src/index.ts";
import type { BlobStore, Store } from "../../src/ports/index.ts";
import { readText, textBody } from "../../src/testing/blob-bodies.ts";

const form = "0199aaaa-0000-7000-8000-000000000001";

/** A source with a form, 30 submissions, 3 attachments with files, one without its file. */
async function source(store: Store, blobs: BlobStore) {
  await store.create("forms", form, { id: form, name: "Applications" });
  await store.create("form_counters", form, { id: form, submissions: 30 });
  for (let n = 0; n < 30; n++) {
    await store.create("submissions", form, { id: `s-${String(n).padStart(2, "0")}`, n });
  }
  for (const id of ["a-1", "a-2", "a-3", "a-gone"]) {
    await store.create("attachments", form, { id, form_id: form, file_size: 5 });
    if (id !== "a-gone") {
      await blobs.put(form, id, textBody(`file ${id}`), {
        contentType: "text/plain",
        filename: `${id}.txt`,
      });
    }
  }
  await store.create("account_emails", "ada@example.com", { id: "ada@example.com", user: "u" });
}

describe("copyStore", () => {
  it("copies every record with its file, and a second run finds everything there", async () => {
    const [from, fromBlobs, to, toBlobs] = [
      createMemoryStore(),
      createMemoryBlobStore(),
      createMemoryStore(),
      createMemoryBlobStore(),
    ];
    await source(from, fromBlobs);
    const seen: CopyProgress[] = [];
    const report = await copyStore({
      from,
      to,
      fromBlobs,
      toBlobs,
      pageSize: 7,
      onProgress: (p) => seen.push(p),
    });
    assert.deepEqual(report.collections, [
      { collection: "account_emails", source: 1, target: 1 },
      { collection: "attachments", source: 4, target: 4 },
      { collection: "form_counters", source: 1, target: 1 },
      { collection: "forms", source: 1, target: 1 },
      { collection: "submissions", source: 30, target: 30 },
    ]);
    assert.equal(report.matches, true);
    assert.deepEqual(report.files, { source: 4, written: 3, existed: 0, missing: 1 });
    assert.equal(report.written, 37);
    assert.deepEqual(seen.at(-2), { total: 37, done: 37, existed: 0, files: 3, phase: "copying" });
    assert.deepEqual(seen.at(-1), { total: 37, done: 37, existed: 0, files: 3, phase: "checking" });
    assert.deepEqual((await to.get("submissions", form, "s-07"))?.record, { id: "s-07", n: 7 });
    const file = await toBlobs.get(form, "a-2");
    assert.equal(await readText(file?.body ?? null), "file a-2");
    assert.deepEqual(file?.info, { contentType: "text/plain", filename: "a-2.txt" });

    const again = await copyStore({ from, to, fromBlobs, toBlobs });
    assert.equal(again.written, 0);
    assert.equal(again.existed, 37);
    assert.deepEqual(again.files, { source: 4, written: 0, existed: 4, missing: 0 });
    assert.equal(again.matches, true);
  });

  it("finishes a copy cut short, from a lowdb store, writing again only what is missing", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-copy-"));
    after(() => rm(directory, { recursive: true, force: true }));
    const from = createLowdbStore({ directory });
    const fromBlobs = createMemoryBlobStore();
    await source(from, fromBlobs);
    const [to, toBlobs] = [createMemoryStore(), createMemoryBlobStore()];
    // As a killed run leaves it: some records with their files, one file without its record.
    await to.create("submissions", form, { id: "s-03", n: 3 });
    await to.create("attachments", form, { id: "a-1", form_id: form, file_size: 5 });
    await toBlobs.put(form, "a-1", textBody("file a-1"), {
      contentType: "text/plain",
      filename: "a-1.txt",
    });
    await toBlobs.put(form, "a-2", textBody("file a-2"), {
      contentType: "text/plain",
      filename: "a-2.txt",
    });
    const report = await copyStore({ from, to, fromBlobs, toBlobs, concurrency: 3 });
    await from.close();
    assert.equal(report.matches, true);
    assert.equal(report.existed, 2);
    assert.equal(report.written, 35);
    assert.deepEqual(report.files, { source: 4, written: 2, existed: 1, missing: 1 });
    assert.equal(await readText((await toBlobs.get(form, "a-3"))?.body ?? null), "file a-3");
  });

  it("reports a collection the target holds more of, and leaves the target's record as it is", async () => {
    const [from, to] = [createMemoryStore(), createMemoryStore()];
    await from.create("forms", form, { id: form, name: "Source" });
    await to.create("forms", form, { id: form, name: "Changed in the target" });
    await to.create("forms", "another", { id: "another", name: "Only in the target" });
    const report = await copyStore({ from, to });
    assert.deepEqual(report.collections, [{ collection: "forms", source: 1, target: 2 }]);
    assert.equal(report.matches, false);
    assert.equal(
      (await to.get<{ id: string; name: string }>("forms", form, form))?.record.name,
      "Changed in the target",
    );
  });

  it("stops at a target's failure, starting no chunk after it, and throws it", async () => {
    const from = createMemoryStore();
    for (let n = 0; n < 300; n++)
      await from.create("submissions", `form-${n % 30}`, { id: `s-${n}`, n });
    const inner = createMemoryStore();
    let batches = 0;
    const to: Store = {
      ...inner,
      scan: (options) => inner.scan(options),
      async batch(ops) {
        if (++batches === 10) throw new Error("the target went away");
        return inner.batch(ops);
      },
    };
    await assert.rejects(copyStore({ from, to, concurrency: 4 }), /the target went away/);
    // 30 chunks of 10: those already under way finish; none starts after the failure.
    assert.ok(batches >= 10 && batches <= 13, `${batches} batches`);
    assert.equal((await inner.scan()).items.length, (batches - 1) * 10);
  });
});
