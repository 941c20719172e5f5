import assert from "node:assert/strict";
import { mkdtemp, rename, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { FileLayouts } from "../../adapters/lowdb/file-layouts.ts";
import { readSnapshot } from "../../adapters/lowdb/segments.ts";
import { type Entry, encodeSegment } from "../../adapters/lowdb/snapshot-format.ts";

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

/** A segment file's bytes holding `count` records, record `changed` with `n: -1`. */
function segmentBytes(count: number, changed?: number) {
  const records = new Map<string, Entry>();
  for (let n = 0; n < count; n++) {
    const id = `id-${String(n).padStart(3, "0")}`;
    const created_date_utc = new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
    const record = { id, created_date_utc, n: n === changed ? -1 : n };
    records.set(id, { record, etag: `e${n}` });
  }
  return encodeSegment(records, ["created_date_utc"]);
}

/** Every record of a snapshot, through its order index and lines as a page reads them. */
function linesOf(snapshot: ReturnType<typeof readSnapshot>) {
  const lines = snapshot.candidates("created_date_utc", () => true, false) ?? [];
  return lines.map(({ line }) => snapshot.lineAt(line)?.entry.record as { n: number } | undefined);
}

/** The `n` of the record on record line `line`. */
function nAt(snapshot: ReturnType<typeof readSnapshot>, line: number) {
  return (snapshot.lineAt(line)?.entry.record as { n: number } | undefined)?.n;
}

async function segmentFile(bytes: Buffer) {
  const directory = await mkdtemp(join(tmpdir(), "formwork-layouts-"));
  temporary.push(directory);
  const path = join(directory, "0.json");
  await writeFile(path, bytes);
  return path;
}

describe("lowdb segment files' layouts", () => {
  it("reads a file again on the layout it found while it is unchanged, and anew once it changed", async () => {
    const path = await segmentFile(segmentBytes(20));
    const layouts = new FileLayouts(8);
    const first = readSnapshot(path, { low: "" }, layouts);
    assert.ok(first.sealed && first.layout);
    assert.equal(layouts.size, 1);
    // A snapshot's bytes are good until the next read: its lines are read at once.
    const records = linesOf(first);
    assert.equal(records.length, 20);
    // Unchanged: the layout found the first time is the one used.
    const again = readSnapshot(path, { low: "" }, layouts);
    assert.equal(again.layout, first.layout);
    assert.deepEqual(linesOf(again), records);
    // Rewritten (one record changed, so its checksum and first line did): read anew.
    await writeFile(path, segmentBytes(20, 7));
    const rewritten = readSnapshot(path, { low: "" }, layouts);
    assert.notEqual(rewritten.layout, first.layout);
    assert.equal(linesOf(rewritten)[7]?.n, -1);
    assert.equal(layouts.get(path), rewritten.layout);
    // Longer (its first line tells), then cut short: its last lines' block tells.
    await writeFile(path, segmentBytes(30));
    assert.equal(linesOf(readSnapshot(path, { low: "" }, layouts)).length, 30);
    const whole = segmentBytes(30);
    await writeFile(path, whole.subarray(0, whole.length - 10));
    assert.throws(() => linesOf(readSnapshot(path, { low: "" }, layouts)), /is cut short/);
    // A file gone is an empty segment, as without a layout.
    await rm(path);
    assert.deepEqual(linesOf(readSnapshot(path, { low: "" }, layouts)), []);
  });

  it("fails a file whose first line changed and no longer matches its lines, as on a first read", async () => {
    const path = await segmentFile(segmentBytes(20));
    const layouts = new FileLayouts(8);
    readSnapshot(path, { low: "" }, layouts);
    // The same length, one byte of the checksum changed: not the file read before.
    const bytes = segmentBytes(20);
    const digit = bytes.indexOf('"crc":"') + 7;
    bytes[digit] = bytes[digit] === 0x30 ? 0x31 : 0x30;
    await writeFile(path, bytes);
    assert.throws(() => readSnapshot(path, { low: "" }, layouts), /checksum does not match/);
  });

  it("reads again only the blocks of the lines asked for, each checked against its CRC", async () => {
    const bytes = segmentBytes(200);
    const path = await segmentFile(bytes);
    const layouts = new FileLayouts(8);
    const first = readSnapshot(path, { low: "" }, layouts);
    assert.equal(first.layout?.blocks.length, 13);
    first.close();
    // A byte of line 3 rots (the record's `n`), after the file was read whole.
    const rotten = Buffer.from(bytes);
    const at = rotten.indexOf('"n":3}');
    rotten[at + 4] = 0x38;
    await writeFile(path, rotten);
    // Read on its layout, the lines of other blocks are read and answered, its own is not.
    const again = readSnapshot(path, { low: "" }, layouts);
    again.need(80, 96);
    assert.equal(nAt(again, 85), 85);
    assert.equal(nAt(again, 199), 199);
    assert.throws(() => again.lineAt(3), /checksum does not match its content \(lines 2 to 17\)/);
    again.close();
    // Read whole (no layout known), the file fails its checksum as a whole.
    assert.throws(() => readSnapshot(path, { low: "" }, new FileLayouts(8)), /checksum/);
  });

  it("reads the file it opened, not one renamed over it while the snapshot is in use", async () => {
    const path = await segmentFile(segmentBytes(40));
    const layouts = new FileLayouts(8);
    readSnapshot(path, { low: "" }, layouts).close();
    const snapshot = readSnapshot(path, { low: "" }, layouts);
    // Compaction writes a file aside and renames it over the segment's.
    await writeFile(`${path}.tmp`, segmentBytes(40, 39));
    await rename(`${path}.tmp`, path);
    assert.equal(nAt(snapshot, 39), 39);
    snapshot.close();
    assert.throws(() => snapshot.lineAt(20), /closed/);
    assert.equal(linesOf(readSnapshot(path, { low: "" }, layouts))[39]?.n, -1);
  });

  it("keeps at most its bound, forgetting the least recently used", async () => {
    const paths = await Promise.all([0, 1, 2].map(() => segmentFile(segmentBytes(5))));
    const layouts = new FileLayouts(2);
    for (const path of paths.slice(0, 2)) readSnapshot(path, { low: "" }, layouts);
    // The first is used again, so the second is the one forgotten for the third.
    readSnapshot(paths[0] as string, { low: "" }, layouts);
    readSnapshot(paths[2] as string, { low: "" }, layouts);
    assert.equal(layouts.size, 2);
    assert.ok(layouts.get(paths[0] as string));
    assert.equal(layouts.get(paths[1] as string), undefined);
    assert.ok(layouts.get(paths[2] as string));
  });
});
