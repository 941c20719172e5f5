/**
 * Shows what S5 (a page of submissions) costs on the lowdb store and whether the cost grows
 * with the data: forms holding 1,000 and 100,000 submissions (seeded straight into the
 * store), each served from a fresh server process (`submission-server.ts`) over real HTTP.
 * For each: the time to start over the data, the first page of the fresh server, the p50 of
 * pages of 100 in random date windows (mostly segments not loaded yet) and in one window
 * again and again (loaded), and the server's resident memory idle and after 50 pages. Three
 * rounds, medians.
 * Run: `node --conditions=formwork-source --import tsx bench/submission-listing.bench.ts`.
 */
import { rm } from "node:fs/promises";
import { residentMiB } from "./resident-memory.ts";
import { adminSecret, type SeededForm, seedForm } from "./seeded-form.ts";
import { freePort, startServer, stopServer } from "./standalone-process.ts";

const SIZES = [1_000, 100_000];
const ROUNDS = 3;
const PAGES = 200;
const RSS_PAGES = 50;
// The seed writes one submission a millisecond: a window holds up to 5,000 of them.
const WINDOW_MS = 5_000;

/** A page of 100 in the date window starting `k` submissions into the form. */
function pageUrl(base: string, seeded: SeededForm, size: number, k: number): string {
  const from = seeded.firstMs + Math.min(k, Math.max(0, size - WINDOW_MS));
  const query = `?batchSize=100&dateFrom=${from}&dateTo=${from + WINDOW_MS}`;
  return `${base}/api/restricted/form/${seeded.formId}/submissions${query}`;
}

async function timePage(url: string, seeded: SeededForm): Promise<number> {
  const started = performance.now();
  const response = await fetch(url, { headers: seeded.tokens });
  const body = (await response.json()) as { results?: unknown[] };
  if (!response.ok || !body.results) throw new Error(`S5: ${response.status}`);
  return performance.now() - started;
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] as number;

/** One round over one data folder, in a fresh server. */
async function measure(seeded: SeededForm, size: number) {
  const started = performance.now();
  const server = await startServer(
    {
      BENCH_HANDLER: "formwork",
      DATA_DIR: seeded.directory,
      PORT: String(await freePort()),
      ADMIN_SECRET: adminSecret,
    },
    "bench/submission-server.ts",
  );
  const startMs = performance.now() - started;
  try {
    // Windows start at random points among the form's submissions (seeded by round).
    let seed = 1;
    const next = () => {
      seed = (seed * 48271) % 2147483647;
      return seed % Math.max(1, size);
    };
    const idle = residentMiB(server.pid);
    const first = await timePage(pageUrl(server.base, seeded, size, next()), seeded);
    for (let i = 1; i < RSS_PAGES; i++)
      await timePage(pageUrl(server.base, seeded, size, next()), seeded);
    const afterPages = residentMiB(server.pid);
    const times: number[] = [];
    for (let i = 0; i < PAGES; i++) {
      times.push(await timePage(pageUrl(server.base, seeded, size, next()), seeded));
    }
    // One window again and again: what a client paging through recent submissions sees.
    const fixed: number[] = [];
    for (let i = 0; i < PAGES; i++) {
      fixed.push(await timePage(pageUrl(server.base, seeded, size, size >> 1), seeded));
    }
    return { startMs, first, p50: median(times), fixedP50: median(fixed), idle, afterPages };
  } finally {
    await stopServer(server);
  }
}

const seeded: { size: number; form: SeededForm }[] = [];
try {
  for (const size of SIZES) {
    const started = performance.now();
    seeded.push({ size, form: await seedForm(size) });
    console.log(
      `seeded ${size} submissions in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );
  }
  const runs = seeded.map((): Awaited<ReturnType<typeof measure>>[] => []);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [i, { size, form }] of seeded.entries()) runs[i]?.push(await measure(form, size));
  }
  const summary = seeded.map(({ size }, i) => {
    const of = (pick: (run: Awaited<ReturnType<typeof measure>>) => number) =>
      median((runs[i] ?? []).map(pick));
    return {
      submissions: size,
      "start ms": Math.round(of((r) => r.startMs)),
      "first page ms": Number(of((r) => r.first).toFixed(2)),
      "page p50 ms": Number(of((r) => r.p50).toFixed(2)),
      "same window p50 ms": Number(of((r) => r.fixedP50).toFixed(2)),
      "idle RSS MiB": Number(of((r) => r.idle).toFixed(1)),
      [`RSS after ${RSS_PAGES} pages MiB`]: Number(of((r) => r.afterPages).toFixed(1)),
      "RSS rise MiB": Number(of((r) => r.afterPages - r.idle).toFixed(1)),
    };
  });
  console.log(
    `S5 pages of 100 in ${WINDOW_MS / 1000} s date windows at random points, over HTTP, fresh server per round; median of ${ROUNDS} rounds`,
  );
  console.table(summary);
  const [small, large] = summary as [(typeof summary)[number], (typeof summary)[number]];
  const verdict = (ok: boolean) => (ok ? "met" : "NOT met");
  for (const column of ["page p50 ms", "same window p50 ms"] as const) {
    const p50 = large[column];
    const ratio = p50 / small[column];
    console.log(
      `goal (${column.replace(" ms", "")}): at 100k ≤ 5 ms: ${p50} ms, ${verdict(p50 <= 5)}; ` +
        `100k / 1k ≤ 1.5: ${ratio.toFixed(2)} (1k baseline ${small[column]} ms), ${verdict(ratio <= 1.5)}`,
    );
  }
  const p50 = large["page p50 ms"];
  const rise = large["RSS rise MiB"];
  console.log(
    `goal: RSS after ${RSS_PAGES} pages at 100k ≤ idle + 32 MiB: +${rise} MiB (idle baseline ${large["idle RSS MiB"]} MiB), ${verdict(rise <= 32)}`,
  );
  const first = large["first page ms"];
  console.log(
    `goal: first page of a fresh server ≈ later pages, at 100k: ${first} ms vs p50 ${p50} ms (${(first / p50).toFixed(1)}×; 1k: ${small["first page ms"]} ms vs ${small["page p50 ms"]} ms)`,
  );
  console.log(`cold start at 100k: ${large["start ms"]} ms (1k baseline: ${small["start ms"]} ms)`);
} finally {
  for (const { form } of seeded) await rm(form.directory, { recursive: true, force: true });
}
