/**
 * An example server (`examples/<name>/server.ts`) run as `npm run example:<name>` runs it,
 * on a free port and a temporary DATA_DIR, and the admin CLI run against it as the README
 * shows.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { runCommand } from "../run-command.ts";
import { freePort, root } from "../standalone/server-process.ts";

const node = [process.execPath, "--conditions=formwork-source", "--import", "tsx"];

/** A started example server: what it printed up to its start notes, and how to stop it. */
export interface ExampleServer {
  port: number;
  output: string;
  child: ChildProcess;
  /** SIGTERM, then its exit code. */
  stop(): Promise<number | null>;
}

/** Starts `examples/<name>/server.ts` with `env` and waits for its `admin API:` line. */
export async function startExample(
  name: "express" | "hono",
  env: Record<string, string>,
): Promise<ExampleServer> {
  const port = await freePort();
  const { ADMIN_SECRET: _, ...parent } = process.env;
  const child = spawn(node[0] as string, [...node.slice(1), `examples/${name}/server.ts`], {
    cwd: root,
    env: { ...parent, PORT: String(port), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  await new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      if (/^admin API: .*\n/m.test(output)) resolve();
    };
    child.stdout.on("data", read);
    child.stderr.on("data", read);
    child.once("exit", (code) => reject(new Error(`${name} exited (${code}):\n${output}`)));
  });
  return {
    port,
    output,
    child,
    async stop() {
      child.kill("SIGTERM");
      if (child.exitCode === null) await once(child, "exit");
      return child.exitCode;
    },
  };
}

/** Runs the admin CLI with `args` as `npm run admin -- …` does, with no ADMIN_SECRET. */
export function admin(args: string[]) {
  const { ADMIN_SECRET: _, ...env } = process.env;
  return runCommand(
    node[0] as string,
    [...node.slice(1), "examples/standalone/admin-cli.ts", ...args],
    {
      cwd: root,
      env,
    },
  );
}
