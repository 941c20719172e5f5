import { type ChildProcess, spawn } from "node:child_process";

/** The project folder. */
export const root = new URL("../../", import.meta.url).pathname;

/** Starts `npm start`'s server on a free port and waits for its `listening on` line. */
export async function start(
  env: Record<string, string>,
): Promise<{ child: ChildProcess; base: string }> {
  const args = ["--conditions=formwork-source", "--import", "tsx", "examples/standalone/server.ts"];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: { ...process.env, PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const base = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start: ${output}`)), 20_000);
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
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${output}`)));
  });
  return { child, base };
}

/** Stops a server with SIGTERM. @returns its exit code. */
export async function stop(child: ChildProcess): Promise<number | null> {
  const exited = new Promise<number | null>((resolve) => child.once("exit", resolve));
  child.kill("SIGTERM");
  return exited;
}
