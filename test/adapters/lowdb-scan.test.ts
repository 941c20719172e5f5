/**
 * The lowdb store's full scan and the names of its folders (adapters/lowdb/partition-names.ts):
 * a folder name too long to spell out gets `name.json`; one written before that is named from
 * its records, and one that neither names stops the scan, naming the folder.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { encodeName } from "../../adapters/lowdb/file-names.ts";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import type { ScannedRecord, Store } from "../../src/ports/index.ts";

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "formwork-lowdb-scan-"));
  temporary.push(dir);
  return dir;
}

async function scanAll(store: Store): Promise<ScannedRecord[]> {
  const items: ScannedRecord[] = [];
  let continuation: string | null = null;
  do {
    const page = await store.scan({ limit: 3, continuation });
    items.push(...page.items);
    continuation = page.continuation;
  } while (continuation);
  return items;
}

const address = `${"Ada.Lovelace".repeat(10)}@Example.com`;
const long = `email:${address}`;

describe("lowdb store: scan", () => {
  it("writes name.json in a folder whose name is shortened, and reads the names back", async () => {
    const directory = await tempDir();
    const store = createLowdbStore({ directory });
    await store.create("memberships", long, { id: "f1", email: address });
    await store.create("memberships", "user:local|u1", { id: "f2" });
    await store.close();
    const folder = join(directory, "memberships", encodeName(long));
    assert.ok(encodeName(long).includes("~"), "the name is shortened");
    assert.deepEqual(JSON.parse(await readFile(join(folder, "name.json"), "utf8")), {
      collection: "memberships",
      partition: long,
    });
    // A name spelled out in full needs no file.
    const spelled = await readdir(join(directory, "memberships", encodeName("user:local|u1")));
    assert.ok(!spelled.includes("name.json"), spelled.join());
    const again = createLowdbStore({ directory });
    const items = await scanAll(again);
    await again.close();
    assert.deepEqual(items.map(({ partition, record }) => [partition, record.id]).sort(), [
      [long, "f1"],
      ["user:local|u1", "f2"],
    ]);
  });

  it("names a shortened folder written before name.json from its records, or says which it cannot", async () => {
    const directory = await tempDir();
    const store = createLowdbStore({ directory });
    await store.create("memberships", long, { id: "f1", email: address });
    const orphan = `${"x".repeat(130)}-no-record-names-me`;
    await store.create("datalists", orphan, { id: "d1" });
    await store.close();
    await rm(join(directory, "memberships", encodeName(long), "name.json"));
    await rm(join(directory, "datalists", encodeName(orphan), "name.json"));
    const again = createLowdbStore({ directory });
    await assert.rejects(
      scanAll(again),
      (error: Error) =>
        error.message.includes(join(directory, "datalists", encodeName(orphan))) &&
        /cannot tell which partition/.test(error.message),
    );
    await rm(join(directory, "datalists"), { recursive: true });
    const items = await scanAll(again);
    await again.close();
    assert.deepEqual(
      items.map(({ collection, partition, record }) => [collection, partition, record]),
      [["memberships", long, { id: "f1", email: address }]],
    );
  });
});
