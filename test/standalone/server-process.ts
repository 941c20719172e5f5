/**
 * The standalone server as a child process, for the smoke tests: started by the benches'
 * `startServer`, so with the Node flags `npm start` uses, on any free port by default.
 */
import type { ChildProcess } from "node:child_process";
import { type StandaloneServer, startServer } from "../../bench/standalone-process.ts";

export { freePort, root } from "../../bench/standalone-process.ts";

/** Starts the server with `env` added and waits for its `listening on` line. */
export function start(env: Record<string, string>): Promise<StandaloneServer> {
  return startServer({ PORT: "0", ...env });
}

/** Stops a server with SIGTERM. @returns its exit code. */
export async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  return exited;
}
