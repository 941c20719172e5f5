/**
 * The request path (docs/design.md §22): what S2 (posting a submission) costs per request
 * beside a bare itty-router JSON handler served the same way (`submission-server.ts`,
 * compiled into one bundle as `npm start`'s server is: compiled-server.ts), each in a fresh
 * child process loaded by autocannon in this run: S2 on the memory store, and on the lowdb
 * store with a form holding 1,000 and one holding 100,000 submissions (seeded straight into
 * the store, with the form's counter to match), to show whether the cost grows with the
 * data. Each round measures the bare handler and every S2 case once; {@link ROUNDS} rounds,
 * and the table shows each round's ratio to that round's bare figure and the median. The
 * goals these ratios were held to (0.6 on memory, 0.5 on lowdb) are withdrawn: S2 is held
 * to the anchor of `versus-anchor.bench.ts` now (docs/design.md §22).
 * Run: `node --conditions=formwork-source --import tsx bench/request-path.bench.ts`.
 *
 * Two more rows, without a goal, are a diagnostic: the bare handler and S2 on the memory
 * store with each response held one turn of the event loop, so that a turn's responses are
 * written together (`BENCH_HOLD_RESPONSES`), the second as a share of the first. The memory
 * store answers each post as soon as it is handled, and on this loopback each such write
 * wakes the load generator on the other core, a cost that lands in the server's `writev`
 * and grows as the server gets slower than the client; lowdb's group commit answers a group
 * at once. Held on both sides, the ratio is that of the request paths' own costs, without
 * the wake-ups; held on one side only, it would overstate S2.
 *
 * Two more diagnostic rows calibrate the goal: the bare handler made to spend a fixed
 * {@link BUSY_MICROSECONDS} of CPU on each request (`BENCH_BUSY_US`), as a share of the
 * bare handler as served. On a loopback where the load generator shares the machine, each
 * microsecond a server spends beyond the generator's pace also costs a wake-up of the
 * generator, so the ratio falls much faster than the work grows; these rows show how much
 * work per request a ratio leaves room for, in this run.
 */
import { rm } from "node:fs/promises";
import autocannon from "autocannon";
import { v7 } from "uuid";
import { compileScript } from "./compiled-server.ts";
import { adminSecret, createBenchForm, heldBy, seedForm as seed } from "./seeded-form.ts";
import { freePort, startServer, stopServer } from "./standalone-process.ts";

const SIZES = [1_000, 100_000];
const CONNECTIONS = 50;
const WARM_UP_SECONDS = 1;
const SECONDS = 8;
const ROUNDS = 3;
/**
 * The fixed work per request of the calibration rows, in µs. On a 2-core VM
 * they bracketed the memory store's former goal: 12 µs gave 0.67–0.69 × bare and 24 µs 0.54–0.55,
 * so 0.6 leaves a handler about 18 µs of work beyond the bare one. 24 µs is about what S2
 * on the memory store costs beyond the bare handler when both are held (57 against 33 µs
 * of server CPU per request).
 */
const BUSY_MICROSECONDS = [12, 24];
const submission = { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }] };
/**
 * Starts a server process, warms it up, loads it for {@link SECONDS} and stops it. Without
 * `formId`, the form is created through the server first (the memory store starts empty).
 */
async function measure(env: Record<string, string>, formId?: string) {
  const server = await startServer(
    { ...env, PORT: String(await freePort()), ADMIN_SECRET: adminSecret },
    compiled.path,
  );
  try {
    const options = {
      url: `${server.base}/api/form/${formId ?? (await createBenchForm(server.base))}/submission`,
      method: "POST" as const,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(submission),
      connections: CONNECTIONS,
    };
    await autocannon({ ...options, duration: WARM_UP_SECONDS });
    return await autocannon({ ...options, duration: SECONDS });
  } finally {
    await stopServer(server);
  }
}

const perSecond = (result: autocannon.Result) => result.requests.average;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

/** One scenario's results over the rounds, beside the bare handler's of the same rounds. */
interface Scenario {
  name: string;
  goal: number | null;
  results: autocannon.Result[];
}

/** `scenario` as a table row, each round's figure beside `bare`'s of that round. */
function row({ name, goal, results }: Scenario, bare: autocannon.Result[]) {
  const ratios = results.map(
    (result, i) => perSecond(result) / perSecond(bare[i] as autocannon.Result),
  );
  const ratio = median(ratios);
  return {
    scenario: name,
    "requests/s (median)": Math.round(median(results.map(perSecond))),
    "p99 ms (median)": median(results.map((r) => r.latency.p99)),
    "non-2xx": results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
    "× bare, each round": ratios.map((r) => r.toFixed(3)).join(" "),
    "× bare, median": ratio.toFixed(3),
    goal: goal === null ? "-" : `≥ ${goal}`,
    met: goal === null ? "-" : ratio >= goal ? "yes" : "NO",
  };
}

// Compiled as `npm start`'s server is, the bare handler and the service alike.
const compiled = await compileScript("bench/submission-server.ts");
const seeded: { size: number; directory: string; formId: string }[] = [];
try {
  // All seeding first, so that no measurement shares the machine with it.
  for (const size of SIZES) {
    const started = performance.now();
    seeded.push({ size, ...(await seed(size)) });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`seeded ${size} submissions in ${seconds} s`);
  }
  const bare: Scenario = { name: "bare itty-router JSON handler", goal: null, results: [] };
  const memory: Scenario = { name: "S2, memory store", goal: null, results: [] };
  // The diagnostic pair: each held response waits one loop turn, the baseline's too.
  const heldBare: Scenario = {
    name: "diagnostic: bare handler, responses held one loop turn",
    goal: null,
    results: [],
  };
  const held: Scenario = {
    name: "diagnostic: S2, memory store, held (× the held bare handler)",
    goal: null,
    results: [],
  };
  const busy = BUSY_MICROSECONDS.map((microseconds) => ({
    name: `diagnostic: bare handler + ${microseconds} µs of CPU work per request`,
    goal: null,
    results: [] as autocannon.Result[],
  }));
  const lowdb = seeded.map(({ size }) => ({
    name: `S2, lowdb, ${size} submissions`,
    goal: null,
    results: [] as autocannon.Result[],
  }));
  for (let round = 1; round <= ROUNDS; round++) {
    bare.results.push(await measure({ BENCH_HANDLER: "bare" }, v7()));
    memory.results.push(await measure({ BENCH_HANDLER: "memory" }));
    heldBare.results.push(
      await measure({ BENCH_HANDLER: "bare", BENCH_HOLD_RESPONSES: "1" }, v7()),
    );
    held.results.push(await measure({ BENCH_HANDLER: "memory", BENCH_HOLD_RESPONSES: "1" }));
    for (const [i, microseconds] of BUSY_MICROSECONDS.entries()) {
      const result = await measure(
        { BENCH_HANDLER: "bare", BENCH_BUSY_US: `${microseconds}` },
        v7(),
      );
      busy[i]?.results.push(result);
    }
    for (const [i, { directory, formId }] of seeded.entries()) {
      const result = await measure({ BENCH_HANDLER: "formwork", DATA_DIR: directory }, formId);
      lowdb[i]?.results.push(result);
    }
    console.log(`round ${round} of ${ROUNDS} done`);
  }
  const stored = await Promise.all(
    seeded.map(
      async ({ size, directory, formId }) => `${size} → ${await heldBy(directory, formId)}`,
    ),
  );
  console.log(
    `${CONNECTIONS} connections, ${WARM_UP_SECONDS} s warm-up, ${SECONDS} s measured, ${ROUNDS} rounds; each server in a child process; submissions held after: ${stored.join(", ")}`,
  );
  const scenarios = [bare, memory, ...lowdb, ...busy];
  console.table([
    ...scenarios.map((scenario) => row(scenario, bare.results)),
    ...[heldBare, held].map((scenario) => row(scenario, heldBare.results)),
  ]);
} finally {
  for (const { directory } of seeded) await rm(directory, { recursive: true, force: true });
  await compiled.remove();
}
