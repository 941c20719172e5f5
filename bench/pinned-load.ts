/**
 * Load from another core: on a machine with two cores or more, a bench pins each server to
 * core 0 (`startServer`'s `cpus`) and itself, with the load generator it starts, to core 1,
 * so that the server and its client do not take turns on one core (docs/design.md §22).
 * Also the server's CPU time, read from `/proc/<pid>/stat` (Linux only).
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { root } from "./standalone-process.ts";

/** Where servers and the load run: `null` on one core or without `taskset`. */
export interface Pinning {
  server: string;
  client: string;
}

/**
 * Pins this process (every thread, and so the children it starts) to core 1 when the
 * machine has two cores or more and `taskset` is there. @returns the cores, or `null`
 */
export function pinLoadToOwnCore(): Pinning | null {
  if (availableParallelism() < 2 || spawnSync("taskset", ["-V"]).status !== 0) return null;
  execFileSync("taskset", ["-a", "-cp", "1", String(process.pid)], { stdio: "ignore" });
  return { server: "0", client: "1" };
}

/** What the load generator reports, in part. */
export interface LoadResult {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
}

/** A load: for `seconds`, or `amount` requests in all. */
export interface Load {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string>;
  body?: string;
  connections: number;
  seconds?: number;
  amount?: number;
}

const run = promisify(execFile);

/**
 * Runs autocannon in a child process (so on this process's core, never the server's).
 * @throws when any answer is not a 2xx
 */
export async function loadFrom(load: Load): Promise<LoadResult> {
  const args = ["-j", "-c", String(load.connections), "-m", load.method ?? "GET"];
  if (load.seconds !== undefined) args.push("-d", String(load.seconds));
  if (load.amount !== undefined) args.push("-a", String(load.amount));
  for (const [name, value] of Object.entries(load.headers ?? {}))
    args.push("-H", `${name}=${value}`);
  if (load.body !== undefined) args.push("-b", load.body);
  args.push(load.url);
  const { stdout } = await run(join(root, "node_modules/.bin/autocannon"), args, {
    maxBuffer: 1 << 24,
  });
  const result = JSON.parse(stdout) as LoadResult;
  if (result.non2xx + result.errors > 0) throw new Error(`not all 2xx: ${stdout}`);
  return result;
}

const ticksPerSecond = Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim());

/** The CPU seconds `pid` has used so far, user and system, every thread. */
export function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // The command name, in parentheses, may hold spaces: count fields after its end.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / ticksPerSecond;
}
