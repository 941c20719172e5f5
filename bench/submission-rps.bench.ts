/**
 * Shows what S2 (posting a submission) costs per request on the lowdb store, and whether
 * the cost grows with the data: a form holding 10,000 and one holding 100,000 submissions
 * (seeded straight into the store, with the form's counter to match), each served from a
 * fresh process over its data folder, beside a bare itty-router JSON handler served the
 * same way (`submission-server.ts`), all loaded by autocannon in this run, in both
 * durability modes; beside each, the time the server took to start over its data and the
 * bytes it wrote to its files per request (from `/proc/<pid>/io`, less the answers' bytes).
 * Run: `node --conditions=formwork-source --import tsx bench/submission-rps.bench.ts`.
 */
import { readFile, rm } from "node:fs/promises";
import autocannon from "autocannon";
import { v7 } from "uuid";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { adminSecret, heldBy, seedForm as seed } from "./seeded-form.ts";
import { freePort, startServer, stopServer } from "./standalone-process.ts";

const SIZES = [10_000, 100_000];
const CONNECTIONS = 10;
const WARM_UP_SECONDS = 1;
const SECONDS = 3;
const ROUNDS = 3;
// Small enough that compaction runs several times in each measured run, so its writes count.
const JOURNAL_BYTES = 1024 * 1024;
const submission = { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }] };

/** Bytes the process has passed to `write` and friends so far (files and sockets). */
async function bytesWritten(pid: number): Promise<number> {
  const io = await readFile(`/proc/${pid}/io`, "utf8");
  return Number(/^wchar: (\d+)$/m.exec(io)?.[1] ?? Number.NaN);
}

/**
 * Starts a server process, warms it up, loads it for {@link SECONDS} and stops it.
 * @returns the load's result, the time to the `listening on` line, and the bytes the server
 *   wrote per request besides its answers (its files: journal and snapshots)
 */
async function measure(env: Record<string, string>, formId: string) {
  const started = performance.now();
  const server = await startServer(
    { ...env, PORT: String(await freePort()), ADMIN_SECRET: adminSecret },
    "bench/submission-server.ts",
  );
  const startMs = performance.now() - started;
  try {
    const options = {
      url: `${server.base}/api/form/${formId}/submission`,
      method: "POST" as const,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(submission),
      connections: CONNECTIONS,
    };
    await autocannon({ ...options, duration: WARM_UP_SECONDS });
    const before = await bytesWritten(server.pid);
    const result = await autocannon({ ...options, duration: SECONDS });
    const toFiles = (await bytesWritten(server.pid)) - before - result.throughput.total;
    return { result, startMs, bytesPerRequest: toFiles / result.requests.total };
  } finally {
    await stopServer(server);
  }
}

/** The JSON size of the newest submission of the form: one posted by the load. */
async function recordBytes(directory: string, formId: string): Promise<number> {
  const store = createLowdbStore({ directory });
  try {
    const page = await store.query("submissions", formId, {
      orderBy: { field: "created_date_utc", direction: "desc" },
      limit: 1,
    });
    return JSON.stringify(page.items[0]).length;
  } finally {
    await store.close();
  }
}

type Measured = Awaited<ReturnType<typeof measure>>;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] as number;
const perSecond = (runs: Measured[]) => median(runs.map((run) => run.result.requests.average));

function row(scenario: string, runs: Measured[], bare: Measured[], extra: Record<string, string>) {
  const middle = runs.find((run) => run.result.requests.average === perSecond(runs)) as Measured;
  return {
    scenario,
    "requests/s": Math.round(perSecond(runs)),
    "p50 ms": middle.result.latency.p50,
    "non-2xx": runs.reduce((sum, run) => sum + run.result.non2xx + run.result.errors, 0),
    "vs bare": (perSecond(runs) / perSecond(bare)).toFixed(3),
    "start ms": Math.round(median(runs.map((run) => run.startMs))),
    "written B/req": Math.round(median(runs.map((run) => run.bytesPerRequest))),
    ...extra,
  };
}

const seeded: { size: number; directory: string; formId: string }[] = [];
try {
  // All seeding first, so that no measurement shares the machine with it.
  for (const size of SIZES) {
    const started = performance.now();
    seeded.push({ size, ...(await seed(size)) });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`seeded ${size} submissions in ${seconds} s`);
  }
  const scenarios = [
    ...seeded.map((data) => ({ ...data, durability: "process" })),
    { ...(seeded.at(-1) as (typeof seeded)[number]), durability: "machine" },
  ];
  const bare: Measured[] = [];
  const runs = scenarios.map((): Measured[] => []);
  // Rounds interleave the scenarios, so that a noisy moment of the machine hits them all.
  for (let round = 0; round < ROUNDS; round++) {
    bare.push(await measure({ BENCH_HANDLER: "bare" }, v7()));
    for (const [i, { directory, formId, durability }] of scenarios.entries()) {
      const env = {
        BENCH_HANDLER: "formwork",
        DATA_DIR: directory,
        BENCH_DURABILITY: durability,
        BENCH_JOURNAL_BYTES: String(JOURNAL_BYTES),
      };
      runs[i]?.push(await measure(env, formId));
    }
  }
  const record = await recordBytes(seeded[0]?.directory as string, seeded[0]?.formId as string);
  const rows = [row("bare itty-router JSON handler", bare, bare, {})];
  for (const [i, { size, directory, formId, durability }] of scenarios.entries()) {
    const measured = runs[i] as Measured[];
    rows.push(
      row(`S2, lowdb ${durability}, ${size} held`, measured, bare, {
        held: `${size} → ${await heldBy(directory, formId)}`,
        "B/req vs record": (median(measured.map((r) => r.bytesPerRequest)) / record).toFixed(2),
      }),
    );
  }
  console.log(
    `${CONNECTIONS} connections, ${WARM_UP_SECONDS} s warm-up, ${SECONDS} s measured, median of ${ROUNDS} rounds; ` +
      `server in a child process, journal compacted every ${JOURNAL_BYTES / 1024 / 1024} MiB; record JSON ${record} B`,
  );
  console.table(rows);
  const at = (size: number) => perSecond(runs[SIZES.indexOf(size)] as Measured[]);
  const ratio = at(100_000) / at(10_000);
  console.log(
    `goal: S2 at 100k ≥ 0.9 × S2 at 10k (process durability): ${ratio.toFixed(3)} ${ratio >= 0.9 ? "met" : "NOT met"}`,
  );
  const written = median(
    (runs[SIZES.indexOf(100_000)] as Measured[]).map((r) => r.bytesPerRequest),
  );
  console.log(
    `goal: bytes written per S2 < 4 × the record's JSON: ${(written / record).toFixed(2)} × ${written / record < 4 ? "met" : "NOT met"}`,
  );
  console.log(`cold start with 100k on disk: see "start ms", beside the bare handler's`);
} finally {
  for (const { directory } of seeded) await rm(directory, { recursive: true, force: true });
}
