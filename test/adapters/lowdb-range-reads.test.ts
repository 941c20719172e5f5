import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { evaluateQuery } from "../../src/ports/evaluate-query.ts";
import type { Page, Query, StoreRecord } from "../../src/ports/store.ts";

/** What `evaluateQuery`, the reference, answers over `rows`: records and continuation. */
function reference(rows: Row[], query: Query) {
  return recordsOf(
    evaluateQuery(
      rows.map((record) => ({ record, etag: "" })),
      query,
    ),
  );
}

/** A page's records and continuation, without the etags the reference cannot know. */
function recordsOf(page: Page<Row>) {
  return { items: page.items.map(({ record }) => record), continuation: page.continuation };
}

interface Row extends StoreRecord {
  created_date_utc: string;
  words: string[];
  n: number;
}

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

/** 300 rows whose ids follow their creation time only roughly (by up to `jitter` ms), as v7 ids and clocks do. */
function rows(jitter = 5000): Row[] {
  let seed = 7;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: 300 }, (_, n) => {
    const at = Date.UTC(2026, 0, 1) + n * 1000 + Math.floor(random() * jitter);
    return {
      id: `${String(n).padStart(4, "0")}-${Math.floor(random() * 1000)}`,
      created_date_utc: new Date(at).toISOString(),
      words: random() < 0.2 ? ["rare"] : ["common"],
      n,
    };
  });
}

describe("lowdb store range reads", () => {
  it("pages exactly as the reference does, reading segments by their bounds", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-range-"));
    temporary.push(directory);
    const all = rows();
    let store = createLowdbStore({ directory, segmentSize: 10, maxLoadedSegments: 4 });
    await Promise.all(all.map((row) => store.create("s", "f", row)));
    // After a reopen most segments are on disk only: their bounds come from the manifest.
    await store.close();
    store = createLowdbStore({ directory, segmentSize: 10, maxLoadedSegments: 4 });
    await store.replace("s", "f", { ...(all[150] as Row), n: -1 });
    (all[150] as Row).n = -1;
    const iso = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
    const queries: Query[] = [
      { orderBy: { field: "created_date_utc" }, limit: 25 },
      { orderBy: { field: "created_date_utc", direction: "desc" }, limit: 40 },
      {
        where: [
          { field: "created_date_utc", op: "gte", value: iso(100) },
          { field: "created_date_utc", op: "lte", value: iso(180) },
        ],
        orderBy: { field: "created_date_utc" },
        limit: 7,
      },
      {
        where: [{ field: "words", op: "contains", value: "rare" }],
        orderBy: { field: "created_date_utc" },
        limit: 5,
      },
      { limit: 33 },
      { orderBy: { field: "id", direction: "desc" }, limit: 50 },
      { orderBy: { field: "n" }, limit: 60 },
    ];
    for (const query of queries) {
      let expected = reference(all, query);
      let continuation: string | null = null;
      do {
        const page: Page<Row> = await store.query<Row>("s", "f", { ...query, continuation });
        assert.deepEqual(recordsOf(page), expected, JSON.stringify(query));
        continuation = page.continuation;
        expected = reference(all, { ...query, continuation });
      } while (continuation);
    }
    await store.close();
  });

  it("answers pages of two partitions read at once each from its own files", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-range-"));
    temporary.push(directory);
    const first = rows();
    // Characters of two, three and four UTF-8 bytes: lines are found and cut in bytes.
    const second = rows(0).map((row) => ({ ...row, words: ["ünï", "€✓", "😀"], n: row.n + 1000 }));
    let store = createLowdbStore({ directory, segmentSize: 10, maxLoadedSegments: 4 });
    for (const row of first) await store.create("s", "f", row);
    for (const row of second) await store.create("s", "g", row);
    await store.close();
    // Reopened, so that the pages read segment files not loaded, whose bytes are read into
    // one buffer the next read reuses.
    store = createLowdbStore({ directory, segmentSize: 10, maxLoadedSegments: 4 });
    const iso = (n: number) => new Date(Date.UTC(2026, 0, 1) + n * 1000).toISOString();
    const window = (from: number): Query => ({
      where: [{ field: "created_date_utc", op: "gte", value: iso(from) }],
      orderBy: { field: "created_date_utc" },
      limit: 15,
    });
    const reads = Array.from({ length: 40 }, (_, i) => {
      const [partition, all] = i % 2 === 0 ? ["f", first] : ["g", second];
      const query = window((i * 37) % 280);
      return store
        .query<Row>("s", partition, query)
        .then((page) => assert.deepEqual(recordsOf(page), reference(all, query)));
    });
    await Promise.all(reads);
    await store.close();
  });

  it("answers a record read from its line with the line's JSON text of it", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-range-"));
    temporary.push(directory);
    // Whatever a parse and a write again could change: escapes, a lone surrogate, keys
    // that look like indexes, `__proto__` as a key, numbers written in exponent form.
    const odd = (row: Row, n: number) => ({
      ...row,
      text: `"quoted" \\ back\nslash \u0001 \ud800 ünï €✓ 😀 ${n}`,
      fields: { "10": "ten", "2": "two", b: [1e21, 0.1, -0, 5e-7], __proto__: null },
      ["__proto__"]: { inner: true },
    });
    const all = rows(0).map(odd);
    let store = createLowdbStore({ directory, segmentSize: 10, maxLoadedSegments: 4 });
    for (const row of all) await store.create("s", "f", row);
    await store.close();
    store = createLowdbStore({ directory, segmentSize: 10, maxLoadedSegments: 4 });
    // Replacing a record loads its segment (rows 20 to 29): those come without a text.
    await store.replace("s", "f", { ...(all[20] as Row), n: -1 });
    const page = await store.query<Row>("s", "f", {
      where: [{ field: "created_date_utc", op: "gte", value: (all[15] as Row).created_date_utc }],
      orderBy: { field: "created_date_utc" },
      limit: 40,
    });
    assert.equal(page.items.length, 40);
    const untold: number[] = [];
    for (const item of page.items) {
      if (item.json === undefined) untold.push(item.record.n);
      else assert.equal(item.json, JSON.stringify(item.record));
    }
    assert.deepEqual(
      untold,
      [20, 21, 22, 23, 24, 25, 26, 27, 28, 29].map((n) => (n === 20 ? -1 : n)),
    );
    // A condition on another field: lines are parsed, and still come with their texts.
    const searched = await store.query<Row>("s", "f", {
      where: [{ field: "words", op: "contains", value: "common" }],
      orderBy: { field: "created_date_utc" },
      limit: 40,
    });
    const read = searched.items.filter((item) => item.record.n >= 30);
    assert.ok(read.length > 0);
    for (const item of read) assert.equal(item.json, JSON.stringify(item.record));
    await store.close();
  });

  it("reads from its file a segment compaction rewrote after a page had read and checked it", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-range-"));
    temporary.push(directory);
    const all = rows(0);
    const options = { segmentSize: 10, maxLoadedSegments: 2, journalBytes: 300 };
    let store = createLowdbStore({ directory, ...options });
    for (const row of all) await store.create("s", "f", row);
    await store.close();
    store = createLowdbStore({ directory, ...options });
    const query: Query = { orderBy: { field: "created_date_utc" } };
    assert.deepEqual(recordsOf(await store.query<Row>("s", "f", query)), reference(all, query));
    // Row 45's segment is loaded, changed, then written by compaction (the journal passes
    // `journalBytes`), and dropped again for others: the next page reads its new file.
    const compactions = store.stats().compactions;
    const changed = { ...(all[45] as Row), n: -1 };
    for (let n = 0; n < 3; n++) await store.replace("s", "f", { ...changed, n: n - 3 });
    for (let round = 0; store.stats().compactions === compactions; round++) {
      assert.ok(round < 200, "no compaction");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    for (const n of [5, 105, 205]) await store.get("s", "f", (all[n] as Row).id);
    const now = all.map((row) => (row.id === changed.id ? changed : row));
    const page = await store.query<Row>("s", "f", query);
    assert.deepEqual(recordsOf(page), reference(now, query));
    const item = page.items.find(({ record }) => record.id === changed.id);
    assert.equal(item?.json, JSON.stringify(changed), "read from its file");
    await store.close();
  });

  it("never reads a segment outside the page's window", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-range-"));
    temporary.push(directory);
    const all = rows(0);
    let store = createLowdbStore({ directory, segmentSize: 10 });
    for (const row of all) await store.create("s", "f", row);
    await store.close();
    // Spoiling every segment file but the one holding the window's records: reading any
    // other would fail.
    const folder = join(directory, "s", "f");
    const manifest = JSON.parse(await readFile(join(folder, "manifest.json"), "utf8")) as {
      segments: { low: string; file: string }[];
    };
    const target = all[202] as Row;
    const keep = manifest.segments.findLast((segment) => segment.low <= target.id)?.file;
    for (const { file } of manifest.segments) {
      if (file !== keep) await writeFile(join(folder, file), "{");
    }
    store = createLowdbStore({ directory, segmentSize: 10 });
    const from = target.created_date_utc;
    const page = await store.query<Row>("s", "f", {
      where: [{ field: "created_date_utc", op: "gte", value: from }],
      orderBy: { field: "created_date_utc" },
      limit: 3,
    });
    assert.equal(page.items.length, 3);
    await assert.rejects(store.query("s", "f", { orderBy: { field: "created_date_utc" } }), {
      message: /^lowdb store: cannot read/,
    });
    await store.close();
  });

  it("opens a directory whose segment files are in the older single-JSON format, and rewrites them in the line format", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-range-"));
    temporary.push(directory);
    const all = rows();
    let store = createLowdbStore({ directory, segmentSize: 10 });
    await Promise.all(all.map((row) => store.create("s", "f", row)));
    await store.close();
    // Turn every segment file back into the format main wrote: {"records": {id: entry}}.
    const folder = join(directory, "s", "f");
    const files = await segmentFiles(folder);
    for (const file of files) {
      const [, ...lines] = (await readFile(join(folder, file), "utf8")).trimEnd().split("\n");
      const entries = lines.map((line) => JSON.parse(line) as { record: Row; etag: string });
      const records = Object.fromEntries(entries.map((entry) => [entry.record.id, entry]));
      await writeFile(join(folder, file), JSON.stringify({ records }));
    }
    store = createLowdbStore({ directory, segmentSize: 10, maxLoadedSegments: 4 });
    const query: Query = { orderBy: { field: "created_date_utc" }, limit: 45 };
    let expected = reference(all, query);
    let continuation: string | null = null;
    do {
      const page: Page<Row> = await store.query<Row>("s", "f", { ...query, continuation });
      assert.deepEqual(recordsOf(page), expected);
      continuation = page.continuation;
      expected = reference(all, { ...query, continuation });
    } while (continuation);
    await store.close();
    for (const file of files) {
      const text = await readFile(join(folder, file), "utf8");
      assert.ok(text.startsWith('{"format":"formwork-segment/3"'), file);
    }
    store = createLowdbStore({ directory, segmentSize: 10 });
    assert.deepEqual(recordsOf(await store.query<Row>("s", "f", query)), reference(all, query));
    await store.close();
  });

  it("fails a page that needs a segment file cut short, naming the file", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-range-"));
    temporary.push(directory);
    const all = rows(0);
    let store = createLowdbStore({ directory, segmentSize: 10 });
    for (const row of all) await store.create("s", "f", row);
    await store.close();
    const folder = join(directory, "s", "f");
    const [file] = await segmentFiles(folder);
    const text = await readFile(join(folder, file as string), "utf8");
    await writeFile(join(folder, file as string), text.slice(0, text.lastIndexOf("{")));
    store = createLowdbStore({ directory, segmentSize: 10 });
    await assert.rejects(store.query("s", "f", { orderBy: { field: "created_date_utc" } }), {
      message: new RegExp(`${file}.* is cut short`),
    });
    await store.close();
  });

  it("hands out records a caller may change: read from a file or from a loaded segment", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-range-"));
    temporary.push(directory);
    let store = createLowdbStore({ directory, segmentSize: 10, maxLoadedSegments: 2 });
    await Promise.all(rows().map((row) => store.create("s", "f", row)));
    await store.close();
    store = createLowdbStore({ directory, segmentSize: 10, maxLoadedSegments: 2 });
    const query: Query = { orderBy: { field: "created_date_utc" }, limit: 30 };
    const before = await store.query<Row>("s", "f", query);
    for (let round = 0; round < 2; round++) {
      const page = await store.query<Row>("s", "f", query);
      for (const { record: row } of page.items) {
        row.n = -99;
        row.words.push("changed");
      }
      // The records and etags: a record comes with its text only when read from its file.
      assert.deepEqual(storedOf(await store.query<Row>("s", "f", query)), storedOf(before));
      // Loaded now: the first segments, through point reads.
      for (const { record } of before.items.slice(0, 12)) await store.get("s", "f", record.id);
    }
    await store.close();
  });
});

/** A page's records with their etags, and its continuation. */
function storedOf(page: Page<Row>) {
  const items = page.items.map(({ record, etag }) => ({ record, etag }));
  return { items, continuation: page.continuation };
}

/** The segment files of a partition folder. */
async function segmentFiles(folder: string): Promise<string[]> {
  return (await readdir(folder)).filter((f) => f.endsWith(".json") && f !== "manifest.json");
}
