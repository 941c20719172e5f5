import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { once } from "node:events";
import {
  access,
  cp,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  rm,
  stat,
  symlink,
  writeFile,
} from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { crc32 } from "node:zlib";
import {
  createLowdbStore,
  JournalCorruptError,
  type LowdbStoreOptions,
  StoreLockedError,
} from "../../adapters/lowdb/index.ts";
import { type Store, type StoreRecord, StoreUnavailableError } from "../../src/ports/index.ts";
import { runStoreConformance } from "../../src/testing/node-test.ts";

interface Row extends StoreRecord {
  n: number;
}
interface SegmentJson {
  records: Record<string, { record: StoreRecord; etag: string }>;
}

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "formwork-lowdb-"));
  temporary.push(dir);
  return dir;
}

const directories = new WeakMap<Store, string>();
function open(directory: string, options: Partial<LowdbStoreOptions> = {}): Store {
  const store = createLowdbStore({ directory, ...options });
  directories.set(store, directory);
  return store;
}
async function reopen(store: Store, options: Partial<LowdbStoreOptions> = {}): Promise<Store> {
  await store.close();
  return open(directories.get(store) as string, options);
}

/**
 * A segment file's records: the line format (a header line, then one `{record, etag}` line
 * per record) or the older single JSON object `{"records": {...}}`.
 */
async function readSegment(path: string): Promise<SegmentJson | undefined> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
  if (!text.startsWith('{"format":')) return JSON.parse(text) as SegmentJson;
  const [header, ...lines] = text.trimEnd().split("\n");
  const { count } = JSON.parse(header as string) as { count: number };
  assert.equal(lines.length, count);
  const records: SegmentJson["records"] = {};
  for (const line of lines) {
    const entry = JSON.parse(line) as SegmentJson["records"][string];
    records[entry.record.id] = entry;
  }
  return { records };
}

async function readJson<T>(path: string): Promise<T | undefined> {
  try {
    return JSON.parse(await readFile(path, "utf8")) as T;
  } catch (error) {
    if ((error as { code?: string }).code === "ENOENT") return undefined;
    throw error;
  }
}

/** The records a partition's journal entries leave, in order: a record, `null` (deleted), or "clear". */
async function journaled(directory: string, collection: string, partition: string) {
  const files = (await readdir(directory)).filter((f) => /^journal-\d+\.log$/.test(f)).sort();
  const changes: ({ id: string; record: StoreRecord | null } | "clear")[] = [];
  for (const file of files) {
    const text = await readFile(join(directory, file), "utf8");
    for (const line of text.split("\n")) {
      const json = line.slice(9);
      if (!line || crc32(json).toString(16).padStart(8, "0") !== line.slice(0, 8)) break;
      const entry = JSON.parse(json);
      if (entry.c !== collection || entry.p !== partition) continue;
      if (entry.o === "clear") changes.push("clear");
      else if (entry.o === "put") changes.push({ id: entry.r.id, record: entry.r });
      else changes.push({ id: entry.i, record: null });
    }
  }
  return changes;
}

/** Reads one record straight from the files, the way the adapter lays them out. */
async function inspect(store: Store, collection: string, partition: string, id: string) {
  // The conformance suite uses plain lowercase names, which are their own encoding.
  const directory = directories.get(store) as string;
  const folder = join(directory, collection, partition);
  const manifest = (await readJson<{ segments: { low: string; file: string }[] }>(
    join(folder, "manifest.json"),
  )) ?? { segments: [{ low: "", file: "0.json" }] };
  const file = manifest.segments.findLast((segment) => segment.low <= id)?.file as string;
  const records = (await readSegment(join(folder, file)))?.records ?? {};
  let found = Object.hasOwn(records, id) ? records[id]?.record : undefined;
  for (const change of await journaled(directory, collection, partition)) {
    if (change === "clear") found = undefined;
    else if (change.id === id) found = change.record ?? undefined;
  }
  return found;
}

/** A copy of a store's files as a kill -9 would leave them, under a new directory. */
async function crashCopy(directory: string): Promise<string> {
  const copy = await tempDir();
  await cp(directory, copy, { recursive: true });
  const dead = spawn(process.execPath, ["-e", ""]);
  await once(dead, "exit");
  await writeFile(join(copy, "formwork.pid"), String(dead.pid));
  return copy;
}

/** The record counts of a partition's segment files, read from disk. */
async function segmentSizes(folder: string): Promise<number[]> {
  const files = (await readdir(folder)).filter((f) => /^[0-9a-f-]+\.json$/.test(f));
  const segments = await Promise.all(files.map((f) => readSegment(join(folder, f))));
  return segments.map((segment) => Object.keys(segment?.records ?? {}).length);
}

const configurations: Partial<LowdbStoreOptions>[] = [
  {},
  { segmentSize: 3, maxLoadedSegments: 2, journalBytes: 300 },
  { durability: "machine" },
];
for (const options of configurations) {
  runStoreConformance({
    name: `lowdb ${JSON.stringify(options)}`,
    create: async () => open(await tempDir(), options),
    reopen: (store) => reopen(store, options),
    inspect,
  });
}

describe("lowdb store", () => {
  it("keeps the records from other local users: the folder 0700, journal files 0600", async () => {
    const directory = join(await tempDir(), "records");
    await mkdir(directory, { mode: 0o755 }); // as an older version left it
    const store = open(directory, {});
    await store.create<Row>("t", "p", { id: "a", n: 1 });
    const mode = async (path: string) => (await stat(path)).mode & 0o777;
    assert.equal(await mode(directory), 0o700);
    const journals = (await readdir(directory)).filter((name) => name.startsWith("journal-"));
    assert.ok(journals.length > 0);
    for (const name of journals) assert.equal(await mode(join(directory, name)), 0o600, name);
    await store.close();
  });

  it("splits segments by id and keeps every operation right", async () => {
    const options = { segmentSize: 4, maxLoadedSegments: 3 };
    let store = open(await tempDir(), options);
    const ids = Array.from({ length: 50 }, () => randomUUID());
    const created = await Promise.all(ids.map((id, n) => store.create<Row>("t", "p", { id, n })));
    const expected = new Map(ids.map((id, n) => [id, n]));
    for (const [i, id] of ids.slice(0, 10).entries()) {
      await store.replace<Row>("t", "p", { id, n: -1 - i }, { ifMatch: created[i]?.etag });
      expected.set(id, -1 - i);
    }
    for (const id of ids.slice(40)) {
      assert.equal(await store.delete("t", "p", id), true);
      expected.delete(id);
    }
    const check = async () => {
      for (const id of ids)
        assert.equal((await store.get<Row>("t", "p", id))?.record.n, expected.get(id));
      const all = (await store.query<Row>("t", "p")).items;
      assert.deepEqual(
        all.map(({ record: r }) => [r.id, r.n]),
        [...expected].sort(([a], [b]) => (a < b ? -1 : 1)),
      );
    };
    const checkFiles = async () => {
      // Closing compacted the journal into the snapshots.
      const sizes = await segmentSizes(join(directories.get(store) as string, "t", "p"));
      assert.ok(sizes.length > 1 && sizes.every((size) => size <= 4), `sizes ${sizes}`);
      assert.equal(
        sizes.reduce((a, b) => a + b),
        expected.size,
      );
    };
    await check();
    store = await reopen(store, options);
    await checkFiles();
    await check();
    await store.close();
    await checkFiles();
  });

  it("keeps appended segments full and drops the ones emptied", async () => {
    const directory = await tempDir();
    let store = open(directory, { segmentSize: 4 });
    const ids = Array.from({ length: 20 }, (_, n) => `r${String(n).padStart(2, "0")}`);
    for (const [n, id] of ids.entries()) await store.create<Row>("t", "p", { id, n });
    store = await reopen(store, { segmentSize: 4 });
    assert.deepEqual(await segmentSizes(join(directory, "t", "p")), [4, 4, 4, 4, 4]);
    for (const id of ids) await store.delete("t", "p", id);
    const again = await reopen(store);
    assert.deepEqual(await segmentSizes(join(directory, "t", "p")), [0]);
    assert.deepEqual((await again.query("t", "p")).items, []);
    await again.create<Row>("t", "p", { id: "r00", n: 1 });
    assert.equal((await again.get<Row>("t", "p", "r00"))?.record.n, 1);
    await again.close();
  });

  it("splits what grew while compaction ran, so no segment file stays oversized", async () => {
    const directory = await tempDir();
    const store = open(directory, { segmentSize: 4, journalBytes: 500 });
    for (let batch = 0; batch < 30; batch++) {
      const ids = Array.from(
        { length: 10 },
        (_, i) => `r${String(batch * 10 + i).padStart(4, "0")}`,
      );
      await Promise.all(ids.map((id, n) => store.create<Row>("t", "p", { id, n })));
    }
    await store.close();
    const sizes = await segmentSizes(join(directory, "t", "p"));
    assert.equal(
      sizes.reduce((a, b) => a + b),
      300,
    );
    assert.ok(
      sizes.every((size) => size <= 4),
      `sizes ${sizes}`,
    );
  });

  it("ignores the copies a split interrupted by a crash left behind", async () => {
    const directory = await tempDir();
    const folder = join(directory, "t", "p");
    const upper = "11111111-1111-4111-8111-111111111111.json";
    const entries = (rows: [string, number][]) => ({
      records: Object.fromEntries(rows.map(([id, n]) => [id, { record: { id, n }, etag: id }])),
    });
    await mkdir(folder, { recursive: true });
    // The upper segment and the manifest were written; the lower one was not trimmed yet.
    const manifest = {
      segments: [
        { low: "", file: "0.json" },
        { low: "c", file: upper },
      ],
    };
    await writeFile(join(folder, "manifest.json"), JSON.stringify(manifest));
    const stale = entries([
      ["a", 1],
      ["b", 1],
      ["c", 1],
      ["d", 1],
    ]);
    await writeFile(join(folder, "0.json"), JSON.stringify(stale));
    await writeFile(
      join(folder, upper),
      JSON.stringify(
        entries([
          ["c", 2],
          ["d", 2],
        ]),
      ),
    );
    const store = open(directory);
    const rows = (await store.query<Row>("t", "p")).items.map(({ record: r }) => [r.id, r.n]);
    assert.deepEqual(rows, [
      ["a", 1],
      ["b", 1],
      ["c", 2],
      ["d", 2],
    ]);
    await store.delete("t", "p", "c");
    await store.create<Row>("t", "p", { id: "a2", n: 3 });
    assert.equal(await store.get("t", "p", "c"), null);
    assert.equal((await store.query("t", "p")).items.length, 4);
    await store.close();
    // Rewriting the lower segment dropped the stale copies.
    const lower = await readSegment(join(folder, "0.json"));
    assert.deepEqual(Object.keys(lower?.records ?? {}).sort(), ["a", "a2", "b"]);
  });

  it("lets one store at a time open a directory, and takes over a dead process's lock", async () => {
    const directory = await tempDir();
    const first = open(directory);
    await first.create<Row>("t", "p", { id: "x", n: 1 });
    const second = createLowdbStore({ directory });
    const message = `${directory} is in use by another Formwork process (pid ${process.pid})`;
    const locked = (e: unknown) =>
      e instanceof StoreLockedError && e.pid === process.pid && e.directory === directory;
    await assert.rejects(second.open(), (e) => locked(e) && (e as Error).message === message);
    await assert.rejects(second.get("t", "p", "x"), locked);
    // Past proper-lockfile's first refresh of the lock, the holder still holds it.
    await sleep(2500);
    await first.create<Row>("t", "p", { id: "later", n: 2 });
    await assert.rejects(second.open(), locked);
    await first.close();
    // A process killed while holding the lock left its folder and pid behind.
    const dead = spawn(process.execPath, ["-e", ""]);
    await once(dead, "exit");
    await mkdir(join(directory, "formwork.lock"));
    await writeFile(join(directory, "formwork.pid"), String(dead.pid));
    assert.equal((await second.get<Row>("t", "p", "x"))?.record.n, 1);
    const owner = await readFile(join(directory, "formwork.pid"), "utf8");
    assert.equal(owner, String(process.pid));
    await second.close();
    await assert.rejects(access(join(directory, "formwork.lock")), { code: "ENOENT" });
    await assert.rejects(access(join(directory, "formwork.pid")), { code: "ENOENT" });
  });

  it("replays the journal after a crash, dropping a torn tail with a warning", async () => {
    const directory = await tempDir();
    const store = open(directory);
    await store.create<Row>("t", "p", { id: "kept", n: 1 });
    await store.create<Row>("t", "p", { id: "torn", n: 2 });
    // What a kill -9 leaves: the files as written so far, and the lock of a dead process.
    const crashed = await crashCopy(directory);
    await store.close();
    const journal = join(crashed, "journal-000000000001.log");
    const bytes = await readFile(journal);
    await writeFile(journal, bytes.subarray(0, bytes.length - 5));
    const warnings: string[] = [];
    const again = createLowdbStore({ directory: crashed, warn: (w) => warnings.push(w) });
    assert.equal((await again.get<Row>("t", "p", "kept"))?.record.n, 1);
    assert.equal(await again.get("t", "p", "torn"), null);
    assert.match(warnings.join("\n"), /dropped the last \d+ bytes of .*journal-000000000001\.log/);
    await again.create<Row>("t", "p", { id: "after", n: 3 });
    await again.close();
    const last = createLowdbStore({ directory: crashed, warn: (w) => warnings.push(w) });
    assert.deepEqual(
      (await last.query<Row>("t", "p")).items.map((r) => r.record.id),
      ["after", "kept"],
    );
    await last.close();
    assert.equal(warnings.length, 1);
  });

  it("refuses to start on a journal damaged in the middle, naming the file and the byte", async () => {
    const directory = await tempDir();
    const store = open(directory);
    for (let n = 0; n < 60; n++) await store.create<Row>("t", "p", { id: `r${n}`, n });
    // What a kill -9 leaves: the 60 entries in the journal, no snapshot yet.
    const crashed = await crashCopy(directory);
    await store.close();
    const journal = join(crashed, "journal-000000000001.log");
    const bytes = await readFile(journal);
    const lines = bytes.toString("utf8").split("\n");
    assert.equal(lines.length, 61, "one line per entry");
    const offset = Buffer.byteLength(
      lines
        .slice(0, 28)
        .map((line) => `${line}\n`)
        .join(""),
    );
    // One byte flipped inside the 29th entry's JSON.
    bytes[offset + 20] = (bytes[offset + 20] as number) ^ 0x01;
    await writeFile(journal, bytes);
    const files = async () =>
      (await readdir(crashed)).filter((f) => !f.startsWith("formwork.")).sort();
    const before = await files();
    const warnings: string[] = [];
    const again = createLowdbStore({ directory: crashed, warn: (w) => warnings.push(w) });
    await assert.rejects(again.open(), (e: unknown) => {
      assert.ok(e instanceof JournalCorruptError);
      assert.equal(e.file, journal);
      assert.equal(e.offset, offset);
      assert.match(e.message, new RegExp(`^${journal} is corrupt at byte ${offset}: `));
      assert.match(e.message, /Restore the folder from a backup, or run npm run admin -- repair /);
      return true;
    });
    await assert.rejects(again.get("t", "p", "r0"), JournalCorruptError);
    await again.close();
    assert.deepEqual(warnings, []);
    // Nothing was dropped, truncated or added: the folder is as it was, minus the dead lock.
    assert.deepEqual(await readFile(journal), bytes);
    assert.deepEqual(await files(), before);
  });

  it("refuses a journal whose newline between two entries was damaged", async () => {
    const directory = await tempDir();
    const store = open(directory);
    for (let n = 0; n < 5; n++) await store.create<Row>("t", "p", { id: `r${n}`, n });
    const crashed = await crashCopy(directory);
    await store.close();
    const journal = join(crashed, "journal-000000000001.log");
    const bytes = await readFile(journal);
    const first = bytes.indexOf(0x0a);
    const second = bytes.indexOf(0x0a, first + 1);
    bytes[second] = 0x20;
    await writeFile(journal, bytes);
    const again = createLowdbStore({ directory: crashed, warn: () => {} });
    await assert.rejects(
      again.open(),
      (e: unknown) => e instanceof JournalCorruptError && e.offset === first + 1,
    );
    await again.close();
  });

  it("still takes lines of garbage at the end of a journal for a torn tail", async () => {
    const directory = await tempDir();
    const store = open(directory);
    for (let n = 0; n < 3; n++) await store.create<Row>("t", "p", { id: `r${n}`, n });
    const crashed = await crashCopy(directory);
    await store.close();
    const journal = join(crashed, "journal-000000000001.log");
    const bytes = await readFile(journal);
    // A last entry with a wrong checksum, a line of garbage, and half a line.
    const last = bytes.subarray(bytes.lastIndexOf(0x0a, bytes.length - 2) + 1);
    const tail = `00000000${last.toString("utf8").slice(8)}garbage\n12345678 {"c":"t","p`;
    await writeFile(journal, Buffer.concat([bytes, Buffer.from(tail)]));
    const warnings: string[] = [];
    const again = createLowdbStore({ directory: crashed, warn: (w) => warnings.push(w) });
    assert.deepEqual(
      (await again.query<Row>("t", "p")).items.map((r) => r.record.id),
      ["r0", "r1", "r2"],
    );
    await again.close();
    assert.match(warnings.join("\n"), /dropped the last \d+ bytes of .*journal-000000000001\.log/);
  });

  it("journals a batch as one entry: a torn batch is dropped whole, across partitions", async () => {
    const directory = await tempDir();
    const store = open(directory);
    await store.create<Row>("counters", "f", { id: "f", n: 0 });
    const counter = await store.batch([
      { op: "replace", collection: "counters", partition: "f", record: { id: "f", n: 1 } as Row },
      { op: "create", collection: "t", partition: "f", record: { id: "one", n: 1 } as Row },
    ]);
    await store.batch([
      {
        op: "replace",
        collection: "counters",
        partition: "f",
        record: { id: "f", n: 2 } as Row,
        ifMatch: counter[0]?.etag,
      },
      { op: "create", collection: "t", partition: "f", record: { id: "two", n: 2 } as Row },
    ]);
    const crashed = await crashCopy(directory);
    await store.close();
    const journal = join(crashed, "journal-000000000001.log");
    const lines = (await readFile(journal, "utf8")).split("\n").filter(Boolean);
    assert.equal(lines.length, 3, "one line per batch");
    const bytes = await readFile(journal);
    // Cut inside the last batch, after its counter's change and before its record's.
    await writeFile(journal, bytes.subarray(0, bytes.length - 40));
    const again = createLowdbStore({ directory: crashed, warn: () => {} });
    assert.equal((await again.get<Row>("counters", "f", "f"))?.record.n, 1);
    assert.deepEqual(
      (await again.query<Row>("t", "f")).items.map((r) => r.record.id),
      ["one"],
    );
    await again.close();
  });

  it("stops the start on a corrupt snapshot the journal needs, naming the file", async () => {
    const directory = await tempDir();
    let store = open(directory);
    await store.create<Row>("t", "p", { id: "x", n: 1 });
    store = await reopen(store);
    await store.create<Row>("t", "p", { id: "y", n: 2 });
    const crashed = await crashCopy(directory);
    await store.close();
    const snapshot = join(crashed, "t", "p", "0.json");
    await writeFile(snapshot, '{ "records": ');
    const again = createLowdbStore({ directory: crashed });
    await assert.rejects(again.open(), (e: Error) => e.message.includes(snapshot));
    await again.close();
  });

  it("touches no file before the first call", async () => {
    const directory = join(await tempDir(), "store");
    await open(directory).close();
    await assert.rejects(access(directory), { code: "ENOENT" });
  });

  it("reads only its own partition, and fails loudly on a corrupt file", async () => {
    const directory = await tempDir();
    const store = open(directory);
    for (const p of ["a", "b", "c"]) await store.create<Row>("t", p, { id: "x", n: 1 });
    const again = await reopen(store);
    await writeFile(join(directory, "t", "b", "0.json"), '{ "records": { "x": ');
    await writeFile(join(directory, "t", "c", "manifest.json"), '{ "segments": [] }');
    assert.equal((await again.get<Row>("t", "a", "x"))?.record.n, 1);
    assert.equal((await again.query("t", "a")).items.length, 1);
    const named = (error: unknown): error is Error =>
      error instanceof Error && /^lowdb store: /.test(error.message);
    await assert.rejects(
      again.get("t", "b", "x"),
      (e) => named(e) && e.cause instanceof SyntaxError,
    );
    await assert.rejects(again.query("t", "b"), named);
    await assert.rejects(again.create<Row>("t", "b", { id: "y", n: 2 }), named);
    await assert.rejects(again.get("t", "c", "x"), named);
    await again.close();
  });

  it("fails a write the disk refuses with a 503 and forgets its change", async () => {
    const directory = await tempDir();
    let store = open(directory, { journalBytes: 1000 });
    await store.create<Row>("t", "p", { id: "x", n: 1 });
    // The journal's next file is the full device, so the writes after the rotation fail.
    await symlink("/dev/full", join(directory, "journal-000000000002.log"));
    await store.create("t", "q", { id: "big", text: "x".repeat(1000) });
    while ((await readdir(directory)).includes("journal-000000000001.log")) await sleep(5);
    const unavailable = (error: unknown) => error instanceof StoreUnavailableError;
    await assert.rejects(store.create<Row>("t", "p", { id: "y", n: 2 }), unavailable);
    await assert.rejects(store.replace<Row>("t", "p", { id: "x", n: 3 }), unavailable);
    assert.equal(await store.get("t", "p", "y"), null);
    assert.equal((await store.get<Row>("t", "p", "x"))?.record.n, 1);
    store = await reopen(store);
    assert.equal(await store.get("t", "p", "y"), null);
    assert.equal((await store.get<Row>("t", "p", "x"))?.record.n, 1);
    assert.equal((await store.query("t", "q")).items.length, 1);
    await store.close();
  });

  it("drops idle segments beyond maxLoadedSegments and reads them again", async () => {
    const directory = await tempDir();
    let store = open(directory);
    await store.create<Row>("t", "a", { id: "x", n: 1 });
    await store.create<Row>("t", "b", { id: "x", n: 2 });
    store = await reopen(store, { maxLoadedSegments: 1 });
    assert.equal((await store.get<Row>("t", "a", "x"))?.record.n, 1);
    assert.equal((await store.get<Row>("t", "b", "x"))?.record.n, 2);
    // Loading b evicted a, so a's file is read again, corruption and all.
    await writeFile(join(directory, "t", "a", "0.json"), "{");
    await writeFile(join(directory, "t", "b", "0.json"), "{");
    await assert.rejects(store.get("t", "a", "x"), { message: /^lowdb store: cannot read/ });
    assert.equal((await store.get<Row>("t", "b", "x"))?.record.n, 2);
    await store.close();
  });

  it("keeps changed segments loaded only until compaction writes them: journalBytes bounds them", async () => {
    const directory = await tempDir();
    const options = { maxLoadedSegments: 1, journalBytes: 4096 };
    const store = open(directory, options);
    await store.create<Row>("t", "a", { id: "x", n: 1 });
    await store.create<Row>("t", "b", { id: "x", n: 2 });
    // Changed and not yet compacted, a's segment stays loaded beyond the bound of one: its
    // change is in no file but the journal.
    await store.create<Row>("t", "c", { id: "c0", n: 0 });
    assert.equal((await store.get<Row>("t", "a", "x"))?.record.n, 1);
    // Past journalBytes, compaction writes every changed segment and starts a new journal.
    for (let n = 1; n < 100; n++) await store.create<Row>("t", "c", { id: `c${n}`, n });
    while ((await readdir(directory)).includes("journal-000000000001.log")) await sleep(5);
    await store.create<Row>("t", "c", { id: "last", n: 100 });
    // Written, a's segment was dropped (the bound is one), so its file is read again.
    await writeFile(join(directory, "t", "a", "0.json"), "{");
    await assert.rejects(store.get("t", "a", "x"), { message: /^lowdb store: cannot read/ });
    await store.close();
  });

  it("keeps hostile names inside its directory and apart from each other", async () => {
    const root = await tempDir();
    const names = ["..", ".", "../up", "a/b", "a\\b", "/abs", "", "~", "%2E%2E", "*", "CON"];
    names.push("con", "nul", "Abc", "abc", "user:local|abc", "email:a@b.com", "ünï ✓", "a\0b");
    names.push("x".repeat(300), "X".repeat(300), "\uD800", "\uDC00", "__proto__", "toString");
    let store = open(join(root, "store"));
    for (const [n, name] of names.entries()) await store.create<Row>(name, name, { id: name, n });
    assert.equal(await store.get("c", "p", "constructor"), null);
    store = await reopen(store);
    for (const [n, name] of names.entries()) {
      assert.equal((await store.get<Row>(name, name, name))?.record.n, n, JSON.stringify(name));
      assert.equal((await store.query(name, name)).items.length, 1);
    }
    await store.close();
    assert.deepEqual(await readdir(root), ["store"]);
    const folders = await readdir(join(root, "store"));
    assert.equal(new Set(folders.map((f) => f.toLowerCase())).size, names.length);
    assert.ok(folders.every((f) => !f.startsWith(".") && f.length < 128));
  });
});
