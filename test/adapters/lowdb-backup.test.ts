import assert from "node:assert/strict";
import { mkdtemp, readdir, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import type { StoreRecord } from "../../src/ports/index.ts";

interface Row extends StoreRecord {
  n: number;
}

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "formwork-lowdb-backup-"));
  temporary.push(dir);
  return dir;
}

/** Every id in a partition, read page by page. */
async function idsIn(store: ReturnType<typeof createLowdbStore>, partition: string) {
  const ids = new Set<string>();
  let continuation: string | undefined;
  do {
    const page = await store.query<Row>("rows", partition, { continuation, limit: 500 });
    for (const { record } of page.items) ids.add(record.id);
    continuation = page.continuation ?? undefined;
  } while (continuation);
  return ids;
}

describe("lowdb store: backupInto", () => {
  it("copies every acknowledged write while writes, compactions and a deletion go on", async () => {
    const directory = await tempDir();
    // A small journal and segments: compactions and splits run all through the backup.
    const store = createLowdbStore({ directory, journalBytes: 2000, segmentSize: 4 });
    const acknowledged: string[] = [];
    const write = async (n: number) => {
      const id = `r${String(n).padStart(6, "0")}`;
      await store.create<Row>("rows", `p${n % 40}`, { id, n });
      acknowledged.push(`p${n % 40}/${id}`);
    };
    for (let n = 0; n < 2000; n++) await write(n);
    await store.create<Row>("doomed", "x", { id: "gone", n: 0 });
    let n = 2000;
    let writing = true;
    // Three writes at a time, a millisecond apart, as requests would come: without a pause,
    // writes that finish on the loop's own thread (docs/design.md §18) would grow the store
    // faster than any backup could copy it.
    const writer = (async () => {
      while (writing) {
        await Promise.all([write(n++), write(n++), write(n++)]);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const before = [...acknowledged];
    const deletion = store.deletePartition("doomed", "x");
    const target = join(await tempDir(), "copy");
    const totals = await store.backupInto(target);
    writing = false;
    await writer;
    await deletion;
    assert.ok(n > 2000 + 3, "writes went on");
    assert.ok(totals.files > 10 && totals.bytes > 0, JSON.stringify(totals));
    assert.equal((await stat(target)).mode & 0o777, 0o700);
    const names = await readdir(target);
    assert.ok(!names.includes("formwork.lock") && !names.includes("formwork.pid"), names.join());

    const copy = createLowdbStore({ directory: target });
    const found = new Set<string>();
    for (let p = 0; p < 40; p++) {
      for (const id of await idsIn(copy, `p${p}`)) found.add(`p${p}/${id}`);
    }
    const missing = before.filter((key) => !found.has(key));
    assert.deepEqual(
      missing,
      [],
      `${missing.length} of ${before.length} acknowledged writes missing`,
    );
    await copy.close();
    await store.close();
  });

  it("refuses a target that exists, naming it", async () => {
    const directory = await tempDir();
    const store = createLowdbStore({ directory });
    await store.create<Row>("rows", "p", { id: "a", n: 1 });
    const target = await tempDir();
    await assert.rejects(store.backupInto(target), (error: Error) =>
      error.message.includes(target),
    );
    await store.close();
  });
});

describe("FileGate", () => {
  it("starts a freeze once the steps in flight end, and holds new steps until it ends", async () => {
    const { FileGate } = await import("../../adapters/lowdb/gate.ts");
    const gate = new FileGate();
    const events: string[] = [];
    let finishStep = () => {};
    const step = gate.changing(
      () =>
        new Promise<void>((resolve) => {
          events.push("step 1 starts");
          finishStep = () => {
            events.push("step 1 ends");
            resolve();
          };
        }),
    );
    let later: Promise<void> | undefined;
    const freeze = gate.frozen(async () => {
      events.push("freeze starts");
      later = gate.changing(async () => {
        events.push("step 2 runs");
      });
      await new Promise((resolve) => setTimeout(resolve, 10));
      events.push("freeze ends");
    });
    await new Promise((resolve) => setTimeout(resolve, 5));
    finishStep();
    await Promise.all([step, freeze]);
    await later;
    assert.deepEqual(events, [
      "step 1 starts",
      "step 1 ends",
      "freeze starts",
      "freeze ends",
      "step 2 runs",
    ]);
  });
});
