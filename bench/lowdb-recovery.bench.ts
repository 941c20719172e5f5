/**
 * Shows what a start costs the lowdb store over 100,000 submissions: after a clean stop
 * (nothing to replay) and after a crash that left a full journal (the default 16 MiB, about
 * 20,000 writes) to replay, in both durability modes. The crash is a copy of the files while
 * the writer still runs, with the lock of a dead process: what `kill -9` leaves. Three
 * rounds, medians. Run:
 * `node --conditions=formwork-source --import tsx bench/lowdb-recovery.bench.ts`.
 */
import { spawn } from "node:child_process";
import { once } from "node:events";
import { cp, mkdtemp, readdir, rm, stat, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v7 } from "uuid";
import { createLowdbStore, type Durability } from "../adapters/lowdb/index.ts";
import { seedForm } from "./seeded-form.ts";

const SIZE = 100_000;
const JOURNALED = 20_000;
const ROUNDS = 3;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] as number;

/** Milliseconds from creating a store to its first read answered. */
async function timeStart(directory: string, formId: string, durability: Durability) {
  const started = performance.now();
  const store = createLowdbStore({ directory, durability, warn: () => {} });
  await store.get("submissions", formId, formId);
  const ms = performance.now() - started;
  await store.close();
  return ms;
}

/** A crashed copy of `seeded` holding `JOURNALED` more writes, only in its journal. */
async function crashedCopy(seeded: string, formId: string): Promise<string> {
  const directory = await mkdtemp(join(tmpdir(), "formwork-recovery-"));
  await cp(seeded, directory, { recursive: true });
  const store = createLowdbStore({ directory, journalBytes: 1024 ** 3 });
  const start = Date.now();
  for (let done = 0; done < JOURNALED; done += 500) {
    await Promise.all(
      Array.from({ length: 500 }, (_, i) =>
        store.create("submissions", formId, {
          id: v7({ msecs: start + done + i }),
          form_id: formId,
          form_fields: [{ unique_system_name: "name_1", submitted_value: `Late ${done + i}` }],
          search_words: ["late"],
          is_draft_submission: false,
          created_date_utc: new Date(start + done + i).toISOString(),
        }),
      ),
    );
  }
  const copy = await mkdtemp(join(tmpdir(), "formwork-recovery-"));
  await cp(directory, copy, { recursive: true });
  await store.close();
  await rm(directory, { recursive: true, force: true });
  const dead = spawn(process.execPath, ["-e", ""]);
  await once(dead, "exit");
  await writeFile(join(copy, "formwork.pid"), String(dead.pid));
  return copy;
}

async function journalBytes(directory: string): Promise<number> {
  let bytes = 0;
  for (const file of await readdir(directory)) {
    if (file.startsWith("journal-")) bytes += (await stat(join(directory, file))).size;
  }
  return bytes;
}

const seeded = await seedForm(SIZE);
const copies: string[] = [];
try {
  const rows = [];
  for (const durability of ["process", "machine"] as const) {
    const clean: number[] = [];
    const crashed: number[] = [];
    let replayed = 0;
    for (let round = 0; round < ROUNDS; round++) {
      clean.push(await timeStart(seeded.directory, seeded.formId, durability));
      const copy = await crashedCopy(seeded.directory, seeded.formId);
      copies.push(copy);
      replayed = await journalBytes(copy);
      crashed.push(await timeStart(copy, seeded.formId, durability));
    }
    rows.push({
      durability,
      "clean start ms": Number(median(clean).toFixed(1)),
      "start after a crash ms": Math.round(median(crashed)),
      "journal replayed MiB": Number((replayed / 1024 ** 2).toFixed(1)),
    });
  }
  console.log(
    `lowdb store over ${SIZE} submissions: open and first read; after a crash with ${JOURNALED} writes in the journal; median of ${ROUNDS}`,
  );
  console.table(rows);
} finally {
  for (const copy of copies) await rm(copy, { recursive: true, force: true });
  await rm(seeded.directory, { recursive: true, force: true });
}
