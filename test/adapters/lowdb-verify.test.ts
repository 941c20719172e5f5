/**
 * `verifyLowdbStore` and `repairLowdbStore` on stopped stores: what they report, what
 * repair keeps, what it moves aside, and what comes back from the journal.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { appendFile, cp, mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import {
  createLowdbStore,
  repairLowdbStore,
  SnapshotCorruptError,
  verifyLowdbStore,
} from "../../adapters/lowdb/index.ts";

interface Row {
  id: string;
  n: number;
  created_date_utc: string;
}

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-verify-"));
  temporary.push(directory);
  return directory;
}

const row = (n: number): Row => ({
  id: `r${n}`,
  n,
  created_date_utc: `2026-01-0${n + 1}T00:00:00.000Z`,
});

/** A stopped store holding r0..r5 in segments of two records, each in its own file. */
async function stoppedStore(): Promise<string> {
  const directory = await tempDir();
  const store = createLowdbStore({ directory, segmentSize: 2 });
  for (let n = 0; n < 6; n++) await store.create("t", "p", row(n));
  await store.close();
  return directory;
}

/** The files of `directory` as a kill -9 of the process holding it would leave them. */
async function crashCopy(directory: string): Promise<string> {
  const copy = await tempDir();
  await cp(directory, copy, { recursive: true });
  const dead = spawn(process.execPath, ["-e", ""]);
  await once(dead, "exit");
  await writeFile(join(copy, "formwork.pid"), String(dead.pid));
  return copy;
}

describe("verifyLowdbStore and repairLowdbStore", () => {
  it("find a stopped store clean, and note a torn journal tail without calling it a fault", async () => {
    const directory = await stoppedStore();
    const clean = await verifyLowdbStore(directory);
    assert.deepEqual(clean.faults, []);
    assert.equal(clean.records, 6);
    assert.equal(clean.segments, 3);
    await appendFile(join(directory, "journal-000000000009.log"), '0badc0de {"o":"put"');
    const torn = await verifyLowdbStore(directory);
    assert.deepEqual(torn.faults, []);
    assert.match(torn.notes[0]?.problem ?? "", /a write torn by a crash, never acknowledged/);
  });

  it("move a damaged segment aside; the records the journal holds come back", async () => {
    const directory = await stoppedStore();
    const store = createLowdbStore({ directory, segmentSize: 2 });
    await store.replace("t", "p", { ...row(0), n: 100 });
    const crashed = await crashCopy(directory);
    await store.close();
    const file = join(crashed, "t", "p", "0.json");
    const text = await readFile(file, "utf8");
    await writeFile(file, text.replace('"n":1,', '"n":7,'));
    // The journal's replay needs that segment: the start stops, naming it.
    const stopped = createLowdbStore({ directory: crashed, segmentSize: 2 });
    await assert.rejects(
      stopped.open(),
      (e) => e instanceof SnapshotCorruptError && e.file === file,
    );
    await stopped.close();
    const found = await verifyLowdbStore(crashed);
    assert.deepEqual(
      found.faults.map((f) => f.file),
      [file],
    );
    const { steps, damagedFolder } = await repairLowdbStore(crashed, new Date(0));
    assert.equal(damagedFolder, join(crashed, ".damaged-1970-01-01T00-00-00-000Z"));
    assert.equal(steps.length, 1);
    assert.match(
      steps[0]?.did ?? "",
      /records lost unless the journal holds them: r0, r1; 1 of them are in the journal/,
    );
    assert.equal(
      await readFile(join(damagedFolder, "t", "p", "0.json"), "utf8"),
      text.replace('"n":1,', '"n":7,'),
    );
    assert.deepEqual((await verifyLowdbStore(crashed)).faults, []);
    const again = createLowdbStore({ directory: crashed, segmentSize: 2 });
    const ids = (await again.query<Row>("t", "p")).items.map(({ record }) => [record.id, record.n]);
    await again.close();
    assert.deepEqual(ids, [
      ["r0", 100],
      ["r2", 2],
      ["r3", 3],
      ["r4", 4],
      ["r5", 5],
    ]);
  });

  it("rebuild a damaged manifest from the segment files, with bounds, losing nothing", async () => {
    const directory = await stoppedStore();
    const manifest = join(directory, "t", "p", "manifest.json");
    await writeFile(manifest, (await readFile(manifest, "utf8")).replace('"low":"r', '"low":"q'));
    assert.match((await verifyLowdbStore(directory)).faults[0]?.problem ?? "", /checksum/);
    const { steps } = await repairLowdbStore(directory);
    assert.match(steps[0]?.did ?? "", /rebuilt from 3 segment files/);
    const rebuilt = JSON.parse(await readFile(manifest, "utf8"));
    assert.deepEqual(
      rebuilt.segments.map((s: { low: string }) => s.low),
      ["", "r2", "r4"],
    );
    assert.deepEqual(rebuilt.segments[1].bounds.created_date_utc, [
      row(2).created_date_utc,
      row(3).created_date_utc,
    ]);
    const moved = await readdir(directory);
    assert.equal(moved.filter((name) => name.startsWith(".damaged-")).length, 1);
    const again = createLowdbStore({ directory, segmentSize: 2 });
    const page = await again.query<Row>("t", "p", { orderBy: { field: "created_date_utc" } });
    await again.close();
    assert.deepEqual(
      page.items.map(({ record }) => record.id),
      ["r0", "r1", "r2", "r3", "r4", "r5"],
    );
  });

  it("find manifest bounds that leave out a record, and drop them", async () => {
    const directory = await stoppedStore();
    const manifest = join(directory, "t", "p", "manifest.json");
    const { segments } = JSON.parse(await readFile(manifest, "utf8"));
    segments[1].bounds.created_date_utc = [row(2).created_date_utc, row(2).created_date_utc];
    // Written as before checksums, so that only the bounds are wrong.
    await writeFile(manifest, JSON.stringify({ segments }));
    const found = await verifyLowdbStore(directory);
    assert.equal(found.faults.length, 1);
    assert.match(
      found.faults[0]?.problem ?? "",
      /bounds of created_date_utc .* leave out .* of record r3/,
    );
    const { steps } = await repairLowdbStore(directory);
    assert.match(steps[0]?.did ?? "", /dropped the bounds of /);
    assert.deepEqual((await verifyLowdbStore(directory)).faults, []);
    const again = createLowdbStore({ directory, segmentSize: 2 });
    const page = await again.query<Row>("t", "p", {
      where: [{ field: "created_date_utc", op: "gt", value: row(2).created_date_utc }],
      orderBy: { field: "created_date_utc" },
    });
    await again.close();
    assert.deepEqual(
      page.items.map(({ record }) => record.id),
      ["r3", "r4", "r5"],
    );
  });
});
