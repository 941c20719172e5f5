import assert from "node:assert/strict";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
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
    // Longer, or cut short: the length alone tells, and the check then finds the fault.
    await writeFile(path, segmentBytes(30));
    assert.equal(linesOf(readSnapshot(path, { low: "" }, layouts)).length, 30);
    const whole = segmentBytes(30);
    await writeFile(path, whole.subarray(0, whole.length - 10));
    assert.throws(() => readSnapshot(path, { low: "" }, layouts), /is cut short|checksum/);
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
