/**
 * The Cosmos DB stand-in as a process of its own, for tests that kill -9 the servers using it
 * and need it to outlive them: runs `startCosmosStandIn()` of `examples/azure/emulators.ts`
 * (the stand-in `npm run dev:azure` runs, whatever fixes it gets), prints one JSON line
 * `{"endpoint": …, "key": …}` on stdout, and serves until SIGTERM or SIGINT.
 *
 * Run: `node --conditions=formwork-source --import tsx test/emulators/cosmos-process.ts`.
 * {@link startCosmosProcess} does so.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { startCosmosStandIn, stopChild } from "../../examples/azure/emulators.ts";

/** A stand-in running as a child process. */
export interface CosmosProcess {
  endpoint: string;
  key: string;
  child: ChildProcess;
  /** Stops it with SIGTERM (SIGKILL after 5 s) and waits for it to exit. */
  stop(): Promise<void>;
}

const script = new URL(import.meta.url).pathname;

/** Starts the stand-in as a child process; it is killed if this process exits first. */
export async function startCosmosProcess(): Promise<CosmosProcess> {
  // Coverage and test-runner settings of this process mean nothing to the stand-in.
  const { NODE_V8_COVERAGE: _, NODE_TEST_CONTEXT: __, ...env } = process.env;
  const child = spawn(
    process.execPath,
    ["--conditions=formwork-source", "--import", "tsx", script],
    { env, stdio: ["ignore", "pipe", "pipe"] },
  );
  const killOnExit = () => child.kill("SIGKILL");
  process.once("exit", killOnExit);
  child.once("exit", () => process.off("exit", killOnExit));
  const { endpoint, key } = await firstLine(child);
  return {
    endpoint,
    key,
    child,
    stop: () => stopChild(child),
  };
}

/** Waits for the JSON line the stand-in prints once it listens. */
function firstLine(child: ChildProcess): Promise<{ endpoint: string; key: string }> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => fail("did not start in time"), 30_000);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`cosmos stand-in ${why}:\n${output}`));
    };
    const exited = (code: number | null) => fail(`exited with ${code}`);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.stdout?.on("data", (chunk: Buffer) => {
      output += chunk;
      const line = /^(\{.*\})$/m.exec(output)?.[1];
      if (!line) return;
      clearTimeout(timer);
      child.off("exit", exited);
      resolve(JSON.parse(line));
    });
    child.once("exit", exited);
  });
}

// Run as a script (not imported): serve the stand-in until told to stop.
if (process.argv[1] === script) {
  const standIn = await startCosmosStandIn();
  console.log(JSON.stringify({ endpoint: standIn.endpoint, key: standIn.key }));
  const stop = () => void standIn.stop().then(() => process.exit(0));
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
