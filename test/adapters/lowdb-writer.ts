/**
 * A child process for the lowdb crash test: opens the store in `argv[2]` with a tiny
 * journal (so compaction runs all the time) and small segments, then writes until killed,
 * four writers at once. Each id is created once (numbered from `argv[3]`), may be replaced,
 * and may be deleted for good. Lines on stdout: `put <id> <n>` once a create or replace is
 * acknowledged, `deleting <id>` before a delete and `del <id>` once it is acknowledged.
 */

import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { StoreConflictError } from "../../src/ports/store.ts";

const directory = process.argv[2] as string;
let n = Number(process.argv[3] ?? 0);
const store = createLowdbStore({ directory, journalBytes: 4096, segmentSize: 8 });
await store.open();
const live: string[] = [];
const record = (id: string, i: number) => ({
  id,
  n: i,
  created_date_utc: new Date(1e12 + i).toISOString(),
});

async function step(i: number): Promise<void> {
  if (i % 5 === 4 && live.length > 20) {
    const id = live.shift() as string;
    console.log(`deleting ${id}`);
    await store.delete("t", "p", id);
    console.log(`del ${id}`);
  } else if (i % 5 === 1 && live.length > 0) {
    const id = live[i % live.length] as string;
    const stored = await store.get("t", "p", id);
    if (!stored) return;
    try {
      await store.replace("t", "p", record(id, i), { ifMatch: stored.etag });
      console.log(`put ${id} ${i}`);
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
    }
  } else {
    const id = `r${String(i).padStart(8, "0")}`;
    await store.create("t", "p", record(id, i));
    live.push(id);
    console.log(`put ${id} ${i}`);
  }
}

const writer = async () => {
  for (;;) await step(n++);
};
await Promise.all([writer(), writer(), writer(), writer()]);
