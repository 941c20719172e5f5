/**
 * Cold start of the standalone server as `npm start` runs it (the esbuild bundle in `build/standalone/`): the time
 * from spawning Node to the server's `listening on` line, over a new data folder each time,
 * beside the same for a Node process that prints the line at once (the floor on this
 * machine, in the same run) and for `npm run dev` (tsx, for reference). {@link RUNS} starts
 * make a round's median; {@link ROUNDS} rounds, and the median of the rounds beside the
 * goal of listening within 300 ms (docs/design.md §22). Run: `npm run build:server && node --import tsx bench/cold-start.bench.ts`.
 */
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { listeningOn, root, serverArgs } from "./standalone-process.ts";

const RUNS = 5;
const ROUNDS = 3;
const goalMs = 300;

/** Milliseconds from spawning `node args` to its `listening on` line; then stops it. */
async function startTime(args: string[]): Promise<number> {
  const dataDir = await mkdtemp(join(tmpdir(), "formwork-cold-start-"));
  try {
    const started = performance.now();
    const child = spawn(process.execPath, args, {
      cwd: root,
      env: { ...process.env, PORT: "0", DATA_DIR: dataDir, ADMIN_SECRET: "bench-admin-secret" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise((resolve) => child.once("exit", resolve));
    await listeningOn(child);
    const elapsed = performance.now() - started;
    child.kill("SIGTERM");
    await exited;
    return elapsed;
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

const cases = [
  {
    name: "node printing the line at once (floor)",
    args: ["-e", 'console.log("listening on http://127.0.0.1:0")'],
    goal: false,
  },
  { name: "npm start (bundle in build/)", args: serverArgs(), goal: true },
  {
    name: "npm run dev (tsx), for reference",
    args: serverArgs("examples/standalone/server.ts"),
    goal: false,
  },
];
const rounds = new Map<string, number[]>(cases.map(({ name }) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const { name, args } of cases) {
    const times: number[] = [];
    for (let run = 0; run < RUNS; run++) times.push(await startTime(args));
    rounds.get(name)?.push(median(times));
  }
}
console.log(`cold start to "listening on", ${RUNS} starts a round, ${ROUNDS} rounds`);
console.table(
  cases.map(({ name, goal }) => {
    const medians = rounds.get(name) ?? [];
    const ms = median(medians);
    return {
      case: name,
      "ms, each round": medians.map((m) => m.toFixed(0)).join(" "),
      "ms, median": Math.round(ms),
      goal: goal ? `≤ ${goalMs}` : "-",
      met: goal ? (ms <= goalMs ? "yes" : "NO") : "-",
    };
  }),
);
