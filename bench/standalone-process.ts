/**
 * Runs the standalone server as a child process of a bench, started as `npm start` does
 * (`node` on the bundle `build/standalone/server.js`, which `npm run bench` builds first),
 * so that the child's pid is the process that serves: no wrapper process
 * whose memory would be measured instead.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { createServer } from "node:net";
import { join } from "node:path";

/** The project folder. */
export const root = new URL("../", import.meta.url).pathname;

/** A running standalone server. */
export interface StandaloneServer {
  child: ChildProcess;
  /** The pid of the process that serves. */
  pid: number;
  /** `http://host:port`, from its `listening on` line. */
  base: string;
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const address = probe.address();
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  if (!address || typeof address === "string") throw new Error("no port from the probe");
  return address.port;
}

/** The standalone server as `npm start` runs it: bundled by `npm run build:server`. */
export const compiledServer = "build/standalone/server.js";

/**
 * The Node arguments that run `script` with `nodeFlags`, by default those of `npm start`
 * (package.json), so that what is measured is what runs: the compiled server as it is, any
 * other script (a bench's own server) through tsx. `BENCH_START_FLAGS` adds to them.
 */
export function serverArgs(script = compiledServer, nodeFlags = npmStartFlags): string[] {
  const flags = [...nodeFlags, ...benchFlags];
  if (script.endsWith(".js")) return [...flags, script];
  return [...flags, "--conditions=formwork-source", "--import", "tsx", script];
}

/**
 * The Node flags of `npm start`: those its script in package.json gives `node` before the
 * server's file (docs/design.md §22).
 */
export const npmStartFlags: string[] = (() => {
  const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as {
    scripts: { start: string };
  };
  const words = manifest.scripts.start.split(/\s+/);
  return words.slice(words.indexOf("node") + 1).filter((word) => word.startsWith("--"));
})();

/**
 * Flags added to every server's, to measure a flag before adopting it: `BENCH_START_FLAGS`
 * (space-separated), e.g. `BENCH_START_FLAGS=--max-semi-space-size=1`.
 */
const benchFlags = (process.env.BENCH_START_FLAGS ?? "").split(" ").filter(Boolean);

/**
 * Starts `script` with `env` added and waits for its `listening on` line; with `cpus` (a
 * `taskset` list such as `"0"`), pinned to those cores from its first instruction (taskset
 * runs Node in its own process, so the pid is still the server's). `nodeFlags` as for
 * {@link serverArgs}: a server that is not ours (the anchor) passes its own.
 */
export async function startServer(
  env: Record<string, string>,
  script = compiledServer,
  cpus?: string,
  nodeFlags = npmStartFlags,
): Promise<StandaloneServer> {
  const node = [process.execPath, ...serverArgs(script, nodeFlags)];
  const [command, ...args] = cpus ? ["taskset", "-c", cpus, ...node] : node;
  const child = spawn(command as string, args, {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  // A bench that ends early, even by an error, must not leave its server running.
  const killChild = () => child.kill("SIGTERM");
  process.on("exit", killChild);
  child.once("exit", () => process.off("exit", killChild));
  try {
    const base = await listeningOn(child);
    if (child.pid === undefined) throw new Error("the server has no pid");
    await refuseWrapper(child.pid, script);
    return { child, pid: child.pid, base };
  } catch (error) {
    killChild();
    throw error;
  }
}

/** Waits for the `listening on` line of `child`. @returns the address it names */
export function listeningOn(child: ChildProcess): Promise<string> {
  let output = "";
  return new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 30_000);
    child.stderr?.on("data", (chunk) => {
      output += chunk;
    });
    child.stdout?.on("data", (chunk) => {
      output += chunk;
      const match = /listening on (http:\/\/[^\s]+)/.exec(output);
      if (match?.[1]) {
        clearTimeout(timer);
        resolve(match[1]);
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code}: ${output}`));
    });
  });
}

/** Stops a server with SIGTERM and waits for it to exit. */
export async function stopServer(server: StandaloneServer): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGTERM");
  await exited;
}

/**
 * Makes sure `pid` runs `script` itself rather than wrapping a child that does, as the `tsx`
 * command would. (Other children, such as the esbuild service tsx starts, are fine.)
 */
async function refuseWrapper(pid: number, script: string): Promise<void> {
  // A child may exit between listing and reading: it then runs nothing.
  const commandLine = (of: string): Promise<string[]> =>
    readFile(`/proc/${of}/cmdline`, "utf8").then(
      (text) => text.split("\0"),
      () => [],
    );
  if (!(await commandLine(String(pid))).includes(script)) {
    throw new Error(`process ${pid} does not run ${script}`);
  }
  for (const thread of await readdir(`/proc/${pid}/task`)) {
    const children = (await readFile(`/proc/${pid}/task/${thread}/children`, "utf8")).split(" ");
    for (const child of children.filter(Boolean)) {
      if ((await commandLine(child)).includes(script))
        throw new Error(`process ${pid} wraps ${child}, which serves`);
    }
  }
}
