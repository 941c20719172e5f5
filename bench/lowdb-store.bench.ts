/**
 * Shows that the cost of single-record calls of the lowdb store does not grow with the data:
 * fills one partition to several sizes (then closes it, which compacts) and times get,
 * create, replace, a cold get (close, which compacts, and reopen: manifest plus one segment
 * read) and a first page of 10 by id. Run:
 * `node --conditions=formwork-source --import tsx bench/lowdb-store.bench.ts`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { v7 } from "uuid";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import type { Store, StoreRecord } from "../src/ports/store.ts";

interface Row extends StoreRecord {
  n: number;
  text: string;
}

const SIZES = [1_000, 10_000, 100_000];
const ROUNDS = 200;

async function fill(store: Store, count: number): Promise<string[]> {
  const ids: string[] = [];
  // Batches of concurrent creates, so that writes to one segment coalesce.
  for (let start = 0; start < count; start += 500) {
    const batch = Array.from({ length: Math.min(500, count - start) }, () => v7());
    ids.push(...batch);
    await Promise.all(batch.map((id, n) => store.create<Row>("t", "p", row(id, start + n))));
  }
  return ids;
}

function row(id: string, n: number): Row {
  return { id, n, text: `record number ${n} with a little text in it` };
}

/** Average milliseconds of `op` over `rounds` sequential calls. */
async function time(rounds: number, op: (i: number) => Promise<unknown>): Promise<string> {
  const start = performance.now();
  for (let i = 0; i < rounds; i++) await op(i);
  return ((performance.now() - start) / rounds).toFixed(3);
}

async function measure(size: number): Promise<Record<string, string | number>> {
  const directory = await mkdtemp(join(tmpdir(), "lowdb-bench-"));
  try {
    let store = createLowdbStore({ directory });
    const ids = await fill(store, size);
    // Closing compacts the fill's journal, which would otherwise run during the timings.
    await store.close();
    store = createLowdbStore({ directory });
    const pick = (i: number) => ids[(i * 7919) % ids.length] as string;
    const get = await time(ROUNDS, (i) => store.get("t", "p", pick(i)));
    const create = await time(ROUNDS, (i) => store.create<Row>("t", "p", row(v7(), size + i)));
    const replace = await time(ROUNDS, (i) => store.replace<Row>("t", "p", row(pick(i), -i)));
    const cold = await time(20, async (i) => {
      await store.close();
      store = createLowdbStore({ directory });
      await store.get("t", "p", pick(i));
    });
    const query = await time(5, () => store.query("t", "p", { limit: 10 }));
    await store.close();
    return { records: size, get, create, replace, "cold get": cold, query };
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

const rows = [];
for (const size of SIZES) rows.push(await measure(size));
console.log("milliseconds per call");
console.table(rows);
