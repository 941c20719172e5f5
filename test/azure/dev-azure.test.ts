import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { walkThrough } from "../mounts/walkthrough.ts";
import { parseExposition } from "../observability/exposition.ts";
import { assertWalkThroughWorked, runReadmeWalkThrough } from "../standalone/readme-walkthrough.ts";
import { freePort } from "../standalone/server-process.ts";

const root = new URL("../../", import.meta.url).pathname;

/** Waits until the output so far matches every pattern, and answers their first groups. */
async function waitFor(child: ChildProcess, patterns: RegExp[], log: { text: string }) {
  const found = () => patterns.map((pattern) => pattern.exec(log.text)?.[1]);
  const deadline = Date.now() + 45_000;
  while (found().some((match) => match === undefined)) {
    if (child.exitCode !== null || Date.now() > deadline) {
      assert.fail(`npm run dev:azure did not get ready:\n${log.text}`);
    }
    await sleep(100);
  }
  return found() as string[];
}

/** The processes below `pid`, read from /proc. */
async function descendants(pid: number): Promise<number[]> {
  const parents = new Map<number, number>();
  for (const name of await readdir("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    const stat = await readFile(`/proc/${name}/stat`, "utf8").catch(() => "");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    if (ppid) parents.set(Number(name), ppid);
  }
  const below = (parent: number): number[] =>
    [...parents].filter(([, p]) => p === parent).flatMap(([child]) => [child, ...below(child)]);
  return below(pid);
}

/** Whether `pid` still runs (a zombie, dead but not yet reaped, does not). */
async function running(pid: number): Promise<boolean> {
  const stat = await readFile(`/proc/${pid}/stat`, "utf8").catch(() => "");
  return stat !== "" && stat.slice(stat.lastIndexOf(")") + 2)[0] !== "Z";
}

/** Those of `pids` that still run. */
async function stillRunning(pids: number[]): Promise<number[]> {
  const states = await Promise.all(pids.map(running));
  return pids.filter((_, n) => states[n]);
}

describe("npm run dev:azure", { timeout: 90_000 }, () => {
  it("serves the walk-throughs on Azurite and the Cosmos stand-in; SIGTERM stops all of it", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-dev-azure-"));
    const { NODE_TEST_CONTEXT: _, ...env } = process.env;
    const metricsPort = await freePort();
    const npm = spawn("npm", ["run", "dev:azure"], {
      cwd: root,
      env: {
        ...env,
        PORT: "0",
        DATA_DIR: dataDir,
        ADMIN_SECRET: "admin",
        METRICS_PORT: String(metricsPort),
      },
      stdio: ["ignore", "pipe", "pipe"],
      detached: true,
    });
    const log = { text: "" };
    npm.stdout.on("data", (chunk: Buffer) => {
      log.text += chunk;
    });
    npm.stderr.on("data", (chunk: Buffer) => {
      log.text += chunk;
    });
    let stopped = false;
    after(async () => {
      // Whatever failed above, nothing of this test outlives it: npm leads its own process
      // group (`detached`), which holds node and Azurite unless they left it.
      if (!stopped && npm.pid) {
        const live = npm.exitCode === null && npm.signalCode === null;
        const pids = [-npm.pid, ...(live ? [...(await descendants(npm.pid)), npm.pid] : [])];
        for (const pid of pids) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // Already gone.
          }
        }
      }
      await rm(dataDir, { recursive: true, force: true });
    });

    const [blobEndpoint, origin] = await waitFor(
      npm,
      [/azurite blob service at (http:\/\/\S+)/, /listening on (http:\/\/[\d.:]+)/],
      log,
    );
    assert.match(log.text, /cosmos stand-in at http:\/\/127\.0\.0\.1:\d+/);
    await walkThrough(origin as string, {
      basePath: "",
      adminSecret: "admin",
      storageUrl: blobEndpoint,
    });

    // And the README's own curl walk-through, as written, partners included.
    const port = new URL(origin as string).port;
    const readme = await runReadmeWalkThrough({
      PORT: port,
      DATA_DIR: dataDir,
      ADMIN_SECRET: "admin",
    });
    try {
      await assertWalkThroughWorked(readme);
    } finally {
      await readme.cleanUp();
    }

    // Metrics on a port of their own (docs/design.md §10), with Cosmos DB's store calls and
    // outbox, and none of lowdb's journal; the public port has no `/metrics`.
    const scrape = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    assert.equal(scrape.status, 200);
    const { samples } = parseExposition(await scrape.text());
    const storeCall = (operation: string, collection: string) =>
      samples.some(
        (s) =>
          s.name === "formwork_store_call_duration_seconds_count" &&
          s.labels.operation === operation &&
          s.labels.collection === collection &&
          s.value > 0,
      );
    assert.ok(storeCall("get", "forms"), "Cosmos DB's reads of forms");
    assert.ok(storeCall("query", "webhook_outbox"), "the outbox worker's queries");
    assert.ok(samples.some((s) => s.name === "formwork_outbox_entries"));
    assert.ok(!samples.some((s) => s.name === "formwork_store_journal_bytes"));
    assert.equal((await fetch(`${origin}/metrics`)).status, 404);

    const family = await descendants(npm.pid as number);
    assert.ok(family.length >= 2, `expected node and Azurite under npm: ${family}`);
    const exited = once(npm, "exit");
    npm.kill("SIGTERM");
    await exited;
    assert.match(log.text, /SIGTERM, finishing the requests in flight/);
    let left = family;
    for (let tries = 0; tries < 100 && left.length > 0; tries++) {
      await sleep(100);
      left = await stillRunning(family);
    }
    assert.deepEqual(left, [], `left running after SIGTERM:\n${log.text}`);
    stopped = true;
  });
});
