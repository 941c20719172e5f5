/**
 * Shows that the export of a form's submissions (extension) streams: forms holding 1,000 and
 * 100,000 submissions (seeded straight into the lowdb store), each exported as CSV and as
 * NDJSON three times in a row from a fresh server process over real HTTP. For each: the
 * kernel's high-water mark of the server's resident memory against its idle memory, after the
 * first export and after the third, and the rate in submissions a second. The goal is a flat
 * memory: exporting the form again does not raise the peak (no more than 8 MiB), so memory is
 * bounded by the store's caches, not by the data. Three rounds, medians.
 * Run: `node --conditions=formwork-source --import tsx bench/submission-export.bench.ts`.
 */
import { rm } from "node:fs/promises";
import { peakMiB, resetPeak, residentMiB } from "./resident-memory.ts";
import { adminSecret, type SeededForm, seedForm } from "./seeded-form.ts";
import { freePort, startServer, stopServer } from "./standalone-process.ts";

const SIZES = [1_000, 100_000];
const FORMATS = ["csv", "ndjson"] as const;
const ROUNDS = 3;
const EXPORTS = 3;
const GOAL_MIB = 8;

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] as number;

/** Reads a whole export and counts its lines, holding one chunk at a time. */
async function readExport(url: string, seeded: SeededForm): Promise<number> {
  const response = await fetch(url, { headers: seeded.tokens });
  if (!response.ok || !response.body) throw new Error(`export: ${response.status}`);
  let lines = 0;
  for await (const chunk of response.body) {
    for (const byte of chunk as Uint8Array) if (byte === 10) lines++;
  }
  return lines;
}

/** One export from a fresh server: memory rise and rate. */
async function measure(seeded: SeededForm, size: number, format: (typeof FORMATS)[number]) {
  const server = await startServer(
    {
      BENCH_HANDLER: "formwork",
      DATA_DIR: seeded.directory,
      PORT: String(await freePort()),
      ADMIN_SECRET: adminSecret,
    },
    "bench/submission-server.ts",
  );
  try {
    const url = `${server.base}/api/restricted/form/${seeded.formId}/submissions/export?format=${format}`;
    const idle = residentMiB(server.pid);
    resetPeak(server.pid);
    const rises: number[] = [];
    const rates: number[] = [];
    for (let n = 0; n < EXPORTS; n++) {
      const started = performance.now();
      const lines = await readExport(url, seeded);
      rates.push(size / ((performance.now() - started) / 1000));
      const expected = format === "csv" ? size + 1 : size;
      if (lines !== expected) throw new Error(`export held ${lines} lines, not ${expected}`);
      rises.push(peakMiB(server.pid) - idle);
    }
    return { first: rises[0] ?? 0, last: rises.at(-1) ?? 0, idle, rate: median(rates) };
  } finally {
    await stopServer(server);
  }
}

const seeded: { size: number; form: SeededForm }[] = [];
try {
  for (const size of SIZES) seeded.push({ size, form: await seedForm(size) });
  const rows = [];
  const rises = new Map<string, number>();
  for (const format of FORMATS) {
    for (const { size, form } of seeded) {
      const runs = [];
      for (let round = 0; round < ROUNDS; round++) runs.push(await measure(form, size, format));
      const first = median(runs.map((run) => run.first));
      const last = median(runs.map((run) => run.last));
      rises.set(`${format} ${size}`, last - first);
      rows.push({
        format,
        submissions: size,
        "idle RSS MiB": Number(median(runs.map((run) => run.idle)).toFixed(1)),
        "peak rise, 1st export MiB": Number(first.toFixed(1)),
        [`peak rise, ${EXPORTS} exports MiB`]: Number(last.toFixed(1)),
        "submissions/s": Math.round(median(runs.map((run) => run.rate))),
      });
    }
  }
  console.log(
    `Export over HTTP, ${EXPORTS} in a row per fresh server; median of ${ROUNDS} rounds.`,
  );
  console.table(rows);
  for (const format of FORMATS) {
    const large = rises.get(`${format} 100000`) ?? Number.NaN;
    const small = rises.get(`${format} 1000`) ?? Number.NaN;
    const met = large <= GOAL_MIB ? "met" : "NOT met";
    console.log(
      `goal (${format}): exporting 100k ${EXPORTS} times raises the peak by ≤ ${GOAL_MIB} MiB over once: +${large.toFixed(1)} MiB, ${met} (baseline, 1k in the same run: +${small.toFixed(1)} MiB)`,
    );
  }
} finally {
  for (const { form } of seeded) await rm(form.directory, { recursive: true, force: true });
}
