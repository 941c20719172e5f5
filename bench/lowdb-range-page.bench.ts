/**
 * S5's store call alone, in this process: a page of 100 in a random 5 s window (ordered by
 * `created_date_utc`) over lowdb stores holding 1,000 and 100,000 submissions, opened fresh
 * (most pages at 100k read a segment that is not loaded). Prints the p50 and the CPU time
 * per page (user + system, which a loaded machine disturbs less than the wall clock), 1k
 * as the baseline measured in the same run; three rounds, medians. It shows the cost of
 * reading a segment from disk and parsing the page's lines, without HTTP or the service.
 * Run: `node --conditions=formwork-source --import tsx bench/lowdb-range-page.bench.ts`.
 */
import { rm } from "node:fs/promises";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { type SeededForm, seedForm } from "./seeded-form.ts";

const SIZES = [1_000, 100_000];
const ROUNDS = 3;
const PAGES = 2_000;
const WINDOW_MS = 5_000;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] as number;

/** One round: a fresh store over the seeded folder, `PAGES` pages in random windows. */
async function measure(seeded: SeededForm, size: number) {
  const store = createLowdbStore({ directory: seeded.directory });
  let seed = 1;
  const times: number[] = [];
  const cpu = process.cpuUsage();
  for (let i = 0; i < PAGES; i++) {
    seed = (seed * 48271) % 2147483647;
    const from = seeded.firstMs + Math.min(seed % size, Math.max(0, size - WINDOW_MS));
    const started = performance.now();
    const page = await store.query("submissions", seeded.formId, {
      where: [
        { field: "created_date_utc", op: "gte", value: new Date(from).toISOString() },
        { field: "created_date_utc", op: "lte", value: new Date(from + WINDOW_MS).toISOString() },
      ],
      orderBy: { field: "created_date_utc" },
      limit: 100,
    });
    times.push(performance.now() - started);
    if (page.items.length === 0) throw new Error("empty page");
  }
  const used = process.cpuUsage(cpu);
  await store.close();
  return { p50: median(times), cpuMicros: (used.user + used.system) / PAGES };
}

const seeded: { size: number; form: SeededForm }[] = [];
try {
  for (const size of SIZES) seeded.push({ size, form: await seedForm(size) });
  const runs = seeded.map((): Awaited<ReturnType<typeof measure>>[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, { size, form }] of seeded.entries()) runs[i]?.push(await measure(form, size));
  }
  const rows = seeded.map(({ size }, i) => ({
    submissions: size,
    "page p50 ms": Number(median((runs[i] ?? []).map((r) => r.p50)).toFixed(3)),
    "CPU µs per page": Math.round(median((runs[i] ?? []).map((r) => r.cpuMicros))),
  }));
  console.log(
    `lowdb store.query, page of 100 in random 5 s windows, in-process; median of ${ROUNDS} rounds`,
  );
  console.table(rows);
  const [small, large] = rows as [(typeof rows)[number], (typeof rows)[number]];
  const ratio = large["CPU µs per page"] / small["CPU µs per page"];
  console.log(
    `100k / 1k CPU per page: ${ratio.toFixed(2)} (1k baseline ${small["CPU µs per page"]} µs); ` +
      `the HTTP figure and its goals are in submission-listing.bench.ts`,
  );
} finally {
  for (const { form } of seeded) await rm(form.directory, { recursive: true, force: true });
}
