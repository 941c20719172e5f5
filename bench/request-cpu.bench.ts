/**
 * The request path by CPU (docs/design.md §22): the server's own CPU microseconds per S2
 * (posting a submission) over HTTP, on the memory store and on the lowdb store, beside the
 * bare itty-router JSON handler of `submission-server.ts`, each served in THIS process
 * through `@hono/node-server` as that server does, and loaded by autocannon in a child
 * process with a fixed number of requests. The CPU is this process's (`process.cpuUsage`,
 * every thread: the lowdb journal writes on libuv's pool count too) and excludes the
 * client's, so the figure holds on a loaded machine where requests per second do not. Each
 * round measures every case once; the table shows the median of {@link ROUNDS} and the bare
 * handler's CPU over each case's: the share of bare throughput a CPU-bound server reaches
 * (once held to ≥ 0.6 on memory and ≥ 0.5 on lowdb; withdrawn: `versus-anchor.bench.ts`
 * holds S2 to the anchor now, docs/design.md §22);
 * `memory, metrics` is the memory case with `metrics: true`, the cost of keeping them; the
 * last line gives the memory store's CPU over lowdb's (goal ≤ 1).
 * Run: `node --conditions=formwork-source --import tsx bench/request-cpu.bench.ts`;
 * `BENCH_ONLY=memory|lowdb|bare|"memory, metrics"` runs one case (for `--cpu-prof`), `BENCH_REQUESTS` sets
 * the requests a case.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { serve } from "@hono/node-server";
import { Router } from "itty-router";
import { v7 } from "uuid";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { createMemoryStore } from "../adapters/memory/index.ts";
import { createFormService } from "../src/index.ts";
import type { Store } from "../src/ports/index.ts";
import { adminSecret, createBenchForm } from "./seeded-form.ts";
import { root } from "./standalone-process.ts";

const WARM_UP = 3_000;
const MEASURED = Number(process.env.BENCH_REQUESTS ?? 20_000);
const CONNECTIONS = 50;
const ROUNDS = 3;
const goals: Record<string, number> = {};
const body = JSON.stringify({
  form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }],
});

type Handler = (request: Request, clientAddress: string | undefined) => Promise<Response>;

/** The bare handler of `submission-server.ts`. */
function bare(): Handler {
  const router = Router();
  router.post("/api/form/:formId/submission", async (request) => {
    const posted = (await request.json()) as { form_fields?: unknown[] };
    return Response.json({
      id: v7(),
      message: "Submission posted successfully",
      fields: posted.form_fields?.length ?? 0,
      actionSuccessful: true,
    });
  });
  return (request) => router.fetch(request);
}

/** A case being served: its handler, the form's id, and how to stop it. */
interface Served {
  handler: Handler;
  formId: string;
  close(): Promise<void>;
}

/** The form service over `store`, as `submission-server.ts` runs it, with the bench form. */
async function formwork(store: Store, close = async () => {}, metrics = false): Promise<Served> {
  const service = createFormService({
    store,
    metrics,
    adminSecret,
    sweepIntervalMs: 0,
    // One load generator is one client address: measure the request path, not the limiter.
    rateLimits: { publicPerMinute: 0 },
  });
  const formId = await createBenchForm(service);
  return {
    handler: (request, clientAddress) => service.fetch(request, { clientAddress }),
    formId,
    close: async () => {
      await service.close();
      await close();
    },
  };
}

const cases: Record<string, () => Promise<Served>> = {
  bare: async () => ({ handler: bare(), formId: v7(), close: async () => {} }),
  memory: () => formwork(createMemoryStore()),
  // The same with Prometheus metrics kept (docs/design.md §10): their cost per request.
  "memory, metrics": () => formwork(createMemoryStore(), undefined, true),
  lowdb: async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-cpu-"));
    const store = createLowdbStore({ directory });
    await store.open();
    return formwork(store, () => rm(directory, { recursive: true, force: true }));
  },
};

const run = promisify(execFile);

/** Sends `amount` S2s to `url` from autocannon in a child process. @throws on any non-2xx */
async function load(url: string, amount: number): Promise<void> {
  const args = ["-c", String(CONNECTIONS), "-a", String(amount), "-m", "POST", "-j"];
  args.push("-H", "content-type=application/json", "-b", body, url);
  const { stdout } = await run(join(root, "node_modules/.bin/autocannon"), args, {
    maxBuffer: 1 << 24,
  });
  const result = JSON.parse(stdout) as { non2xx: number; errors: number };
  if (result.non2xx + result.errors > 0) throw new Error(`not all 2xx: ${stdout}`);
}

/** This process's CPU µs and the wall µs per request over {@link MEASURED} requests. */
async function measure(served: Served) {
  const server = serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request, env) => served.handler(request, env.incoming.socket.remoteAddress),
  });
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as { port: number };
  const url = `http://127.0.0.1:${port}/api/form/${served.formId}/submission`;
  try {
    await load(url, WARM_UP);
    const cpu = process.cpuUsage();
    const started = performance.now();
    await load(url, MEASURED);
    const used = process.cpuUsage(cpu);
    return {
      cpu: (used.user + used.system) / MEASURED,
      wall: ((performance.now() - started) * 1000) / MEASURED,
    };
  } finally {
    server.close();
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const only = process.env.BENCH_ONLY;
const names = Object.keys(cases).filter((name) => !only || name === only);
const results = new Map<string, { cpu: number; wall: number }[]>(names.map((n) => [n, []]));
for (let round = 1; round <= ROUNDS; round++) {
  for (const name of names) {
    const served = await (cases[name] as () => Promise<Served>)();
    try {
      results.get(name)?.push(await measure(served));
    } finally {
      await served.close();
    }
  }
  console.log(`round ${round} of ${ROUNDS} done`);
}
const bareCpu = median(results.get("bare")?.map((r) => r.cpu) ?? []);
console.log(
  `${MEASURED} requests a case after ${WARM_UP} of warm-up, ${CONNECTIONS} connections, ${ROUNDS} rounds; server CPU only (the client is a child process)`,
);
console.table(
  names.map((name) => {
    const rounds = results.get(name) ?? [];
    const cpu = median(rounds.map((r) => r.cpu));
    const goal = goals[name];
    const ratio = bareCpu / cpu;
    return {
      case: name,
      "CPU µs/request, each round": rounds.map((r) => r.cpu.toFixed(1)).join(" "),
      "CPU µs/request (median)": cpu.toFixed(1),
      "wall µs/request (median)": median(rounds.map((r) => r.wall)).toFixed(1),
      "bare CPU ÷ this": bareCpu ? ratio.toFixed(3) : "-",
      goal: goal === undefined ? "-" : `≥ ${goal}`,
      met: goal === undefined || !bareCpu ? "-" : ratio >= goal ? "yes" : "NO",
    };
  }),
);
// The memory store, the store of unit tests and examples, costs no more than lowdb's
// journal (docs/design.md §22).
const memoryCpu = median(results.get("memory")?.map((r) => r.cpu) ?? []);
const lowdbCpu = median(results.get("lowdb")?.map((r) => r.cpu) ?? []);
if (memoryCpu && lowdbCpu) {
  const ratio = memoryCpu / lowdbCpu;
  console.log(
    `memory CPU ÷ lowdb CPU: ${ratio.toFixed(3)} (goal ≤ 1.0: ${ratio <= 1 ? "met" : "NOT met"})`,
  );
}
