import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { freePort, root } from "../standalone/server-process.ts";
import { admin } from "./example-server.ts";
import { walkThrough } from "./walkthrough.ts";

/** `npm run example:deno`, with the Deno that `npm ci` installs, on a free port. */
async function startDenoExample(dataDir: string) {
  const port = await freePort();
  const child = spawn("npm", ["run", "--silent", "example:deno"], {
    cwd: root,
    env: {
      ...process.env,
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      ADMIN_SECRET: "admin",
      NO_COLOR: "1",
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  const listening = new Promise<void>((resolve, reject) => {
    const read = (chunk: Buffer) => {
      output += chunk;
      if (/^admin API: .*\n/m.test(output)) resolve();
    };
    child.stdout?.on("data", read);
    child.stderr?.on("data", read);
    child.once("exit", (code) => reject(new Error(`deno exited (${code}):\n${output}`)));
  });
  await listening;
  return { child, origin: `http://127.0.0.1:${port}`, output };
}

function exitOf(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("the Deno example, run by npm run example:deno", { timeout: 60_000 }, () => {
  let dataDir = "";
  let running: Awaited<ReturnType<typeof startDenoExample>>;
  before(async () => {
    dataDir = await mkdtemp(join(tmpdir(), "formwork-deno-"));
    running = await startDenoExample(dataDir);
  });
  after(async () => {
    if (running?.child.exitCode === null) running.child.kill("SIGKILL");
    await rm(dataDir, { recursive: true, force: true });
  });

  it("serves the walk-through at the root, upload and downloads included", async () => {
    await walkThrough(running.origin, { basePath: "" });
  });

  it("says at start where its data is and how the admin CLI reaches it", async () => {
    const notes = running.output.slice(running.output.indexOf("Listening on"));
    assert.equal(
      notes,
      [
        `Listening on ${running.origin}/`,
        `data folder: ${dataDir} (records and files; DATA_DIR sets it)`,
        `admin API: ${running.origin}/api/admin, with the ADMIN_SECRET it started with: npm run admin -- list-accounts --url ${running.origin} --admin-secret "$ADMIN_SECRET"`,
        "",
      ].join("\n"),
    );
    const listed = await admin([
      "list-accounts",
      "--url",
      running.origin,
      "--admin-secret",
      "admin",
    ]);
    assert.equal(listed.code, 0, listed.stderr);
  });

  it("stops on SIGTERM, npm and Deno alike", async () => {
    running.child.kill("SIGTERM");
    assert.equal(await exitOf(running.child), 0);
    await assert.rejects(fetch(`${running.origin}/openapi.json`));
  });
});
