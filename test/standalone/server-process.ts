/**
 * The standalone server as a child process, for the smoke tests: started by the benches'
 * `startServer`, so with the Node flags `npm start` uses, on any free port by default.
 */
import type { ChildProcess } from "node:child_process";
import { readdir, readFile } from "node:fs/promises";
import { type ClientRequest, request } from "node:http";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import {
  root,
  type StandaloneServer,
  serverArgs,
  startServer,
} from "../../bench/standalone-process.ts";

import { type CommandRun, runCommand } from "../run-command.ts";

export {
  compiledServer,
  freePort,
  listeningOn,
  root,
} from "../../bench/standalone-process.ts";

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

/** Runs the server with `env` added until it exits by itself. @returns its exit code and output */
export function runToExit(env: Record<string, string>): Promise<CommandRun> {
  return runCommand(process.execPath, serverArgs(), { cwd: root, env: { ...process.env, ...env } });
}

/** The pids of the children of `pid` (Linux: from `/proc`). */
export async function childrenOf(pid: number): Promise<number[]> {
  const children: number[] = [];
  for (const thread of await readdir(`/proc/${pid}/task`)) {
    const listed = await readFile(`/proc/${pid}/task/${thread}/children`, "utf8");
    children.push(...listed.split(" ").filter(Boolean).map(Number));
  }
  return children;
}

/** The command line of `pid`, or `[]` once it has exited. */
export function commandLine(pid: number): Promise<string[]> {
  return readFile(`/proc/${pid}/cmdline`, "utf8").then(
    (text) => text.split("\0").filter(Boolean),
    () => [],
  );
}

/** Polls `check` every 50 ms until it holds, for at most `attempts` tries. */
export async function eventually(check: () => Promise<boolean>, attempts = 200): Promise<boolean> {
  for (let attempt = 0; attempt < attempts; attempt++) {
    if (await check()) return true;
    await sleep(50);
  }
  return false;
}

/**
 * An upload (S3) to `url` of a file for `field` whose client stalls after 300 kB of the
 * 900 kB it announced, once the server under `dataDir` is writing it (a partial file is
 * there); `null` if it never started writing. Destroy the request to end it.
 */
export async function stalledUpload(
  url: string,
  field: string,
  dataDir: string,
): Promise<ClientRequest | null> {
  const boundary = "----formwork-stalled";
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="cv.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  const upload = request(url, {
    method: "POST",
    headers: {
      "content-type": `multipart/form-data; boundary=${boundary}`,
      "content-length": String(head.length + 900_000),
    },
  });
  upload.on("error", () => {});
  upload.write(head);
  upload.write(new Uint8Array(300_000));
  const partial = join(dataDir, "files", ".partial");
  const writing = await eventually(async () => (await readdir(partial).catch(() => [])).length > 0);
  return writing ? upload : null;
}
