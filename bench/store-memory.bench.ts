/**
 * A store that stays lean (docs/design.md §22): the resident memory of the standalone server
 * (`npm start`'s bundle on the lowdb store, in a fresh data folder) idle, with one form, and
 * after {@link COUNT} S2s (posting a submission) from autocannon, against the goal of idle +
 * {@link GOAL_MIB} MiB. Each round is a fresh server; the table shows every round and the
 * median of {@link ROUNDS}. The request log is off (`LOG_LEVEL=warn`) and so is the public
 * rate limit (one load generator is one client address), so what grows is the service and
 * its store, not pino's stream or the limiter.
 * Run: `node --conditions=formwork-source --import tsx bench/store-memory.bench.ts` after
 * `npm run build:server`; `BENCH_S2_COUNT` sets the S2s a round (default 100,000).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { residentMiB } from "./resident-memory.ts";
import { adminSecret, createBenchForm } from "./seeded-form.ts";
import { freePort, startServer, stopServer } from "./standalone-process.ts";

const COUNT = Number(process.env.BENCH_S2_COUNT ?? 100_000);
const ROUNDS = 3;
const GOAL_MIB = 64;
const CONNECTIONS = 10;
/** S2s a call of autocannon: a progress line each. */
const STEP = 10_000;
const body = JSON.stringify({
  form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }],
});

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** One fresh server: its resident memory idle and after {@link COUNT} S2s, in MiB. */
async function round(): Promise<{ idle: number; after: number }> {
  const dataDir = await mkdtemp(join(tmpdir(), "formwork-store-memory-"));
  const server = await startServer({
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    ADMIN_SECRET: adminSecret,
    RATE_LIMIT_PUBLIC_PER_MINUTE: "0",
    LOG_LEVEL: "warn",
  });
  try {
    const formId = await createBenchForm(server.base);
    await settle(1000);
    const idle = residentMiB(server.pid);
    for (let done = 0; done < COUNT; done += STEP) {
      const result = await autocannon({
        url: `${server.base}/api/form/${formId}/submission`,
        method: "POST",
        headers: { "content-type": "application/json" },
        body,
        connections: CONNECTIONS,
        amount: Math.min(STEP, COUNT - done),
      });
      if (result.non2xx + result.errors > 0) throw new Error("not every S2 answered 2xx");
      console.log(
        `  ${done + Math.min(STEP, COUNT - done)} S2s: ${residentMiB(server.pid).toFixed(1)} MiB`,
      );
    }
    await settle(2000);
    return { idle, after: residentMiB(server.pid) };
  } finally {
    await stopServer(server);
    await rm(dataDir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const rounds: { idle: number; after: number }[] = [];
for (let n = 1; n <= ROUNDS; n++) {
  rounds.push(await round());
  console.log(`round ${n} of ${ROUNDS} done`);
}
const rise = median(rounds.map((r) => r.after - r.idle));
console.log(
  `${COUNT} S2s a round, ${CONNECTIONS} connections, ${ROUNDS} rounds (fresh server each)`,
);
console.table([
  {
    figure: "RSS idle, MiB",
    "each round": rounds.map((r) => r.idle.toFixed(1)).join(" "),
    median: median(rounds.map((r) => r.idle)).toFixed(1),
    goal: "-",
    met: "-",
  },
  {
    figure: `RSS after ${COUNT} S2s, MiB`,
    "each round": rounds.map((r) => r.after.toFixed(1)).join(" "),
    median: median(rounds.map((r) => r.after)).toFixed(1),
    goal: "-",
    met: "-",
  },
  {
    figure: "rise over idle, MiB",
    "each round": rounds.map((r) => (r.after - r.idle).toFixed(1)).join(" "),
    median: rise.toFixed(1),
    goal: `≤ ${GOAL_MIB}`,
    met: rise <= GOAL_MIB ? "yes" : "NO",
  },
]);
