/**
 * `npm run admin -- copy --to cosmos` end to end: a standalone DATA_DIR of 10,000 submissions
 * (250 with a file) copied to the Cosmos stand-in and Azurite, the copy killed with SIGKILL
 * halfway, then finished by running the README's "Moving to Azure" block as written; then
 * `start:azure` answers S5, S1, a download through S4's link and a partner customer's F4 (its
 * login token signed with DATA_DIR's customer-token-secret) as the standalone server did.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { startAzurite } from "../emulators/azurite.ts";
import { startCosmosProcess } from "../emulators/cosmos-process.ts";
import { readmeShellBlocks } from "../standalone/readme-walkthrough.ts";
import { answersOf, seedAdminSecret, seedDataDir } from "./copy-seed.ts";

const root = new URL("../../", import.meta.url).pathname;

/** Starts `command` in its own process group, its output gathered in `log.text`. */
function launch(command: string, args: string[], env: NodeJS.ProcessEnv) {
  const child = spawn(command, args, {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  const log = { text: "" };
  child.stdout.on("data", (chunk: Buffer) => {
    log.text += chunk;
  });
  child.stderr.on("data", (chunk: Buffer) => {
    log.text += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once("close", resolve));
  after(() => killGroup(child));
  return { child, log, exited };
}

function killGroup(child: ChildProcess) {
  try {
    if (child.pid) process.kill(-child.pid, "SIGKILL");
  } catch {
    // Already gone.
  }
}

/** Waits until `pattern` matches the output, or fails with the output. */
async function waitFor(run: ReturnType<typeof launch>, pattern: RegExp, seconds: number) {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const match = pattern.exec(run.log.text);
    if (match) return match;
    if (run.child.exitCode !== null || Date.now() > deadline) {
      assert.fail(`no ${pattern} in:\n${run.log.text}`);
    }
    await sleep(50);
  }
}

/**
 * What S5, S1 and S4 answer, with what must differ set aside: the links (signed by another
 * store) and S5's continuation token (each store's own, opaque).
 */
function comparable(answers: Awaited<ReturnType<typeof answersOf>>) {
  const text = JSON.stringify([answers.page, answers.submission, answers.customerForms]);
  const withoutLinks = text.replace(
    /"(container_sas_uri|attachment_sas_uri|attachment_uri|storage_url|continuation_token)":"[^"]*"/g,
    '"$1":"…"',
  );
  return {
    answers: JSON.parse(withoutLinks),
    download: answers.download,
  };
}

describe("npm run admin -- copy --to cosmos", { timeout: 240_000 }, () => {
  it("copies 10,000 submissions with their files, resumes after kill -9, and start:azure serves the same", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-copy-"));
    after(() => rm(dataDir, { recursive: true, force: true }));
    const seeded = await seedDataDir(dataDir, 10_000, 40);
    const [cosmos, azurite] = await Promise.all([startCosmosProcess(), startAzurite()]);
    after(() => cosmos.stop());
    const { NODE_TEST_CONTEXT: _, NODE_V8_COVERAGE: __, ...inherited } = process.env;
    const env = {
      ...inherited,
      DATA_DIR: dataDir,
      ADMIN_SECRET: seedAdminSecret,
      COSMOS_ENDPOINT: cosmos.endpoint,
      COSMOS_KEY: cosmos.key,
      COSMOS_DATABASE: "formwork",
      COSMOS_ENDPOINT_DISCOVERY: "0",
      AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
    };

    // The first run, killed once about half the records are copied.
    const first = launch("npm", ["run", "admin", "--", "copy", "--to", "cosmos"], env);
    const half = await waitFor(first, /copied (\d+)\/(\d+) records/, 60);
    let progress = half;
    while (Number(progress[1]) < Number(progress[2]) / 2) {
      await sleep(10);
      const lines = [...first.log.text.matchAll(/copied (\d+)\/(\d+) records/g)];
      progress = lines.at(-1) ?? progress;
      if (first.child.exitCode !== null) assert.fail(`the copy ended first:\n${first.log.text}`);
    }
    killGroup(first.child);
    await first.exited;
    const total = Number(progress[2]);
    assert.ok(Number(progress[1]) < total, `killed before the end: ${progress[0]}`);

    // The README's block, as written, finishes the job.
    const [block] = await readmeShellBlocks(["Moving to Azure"]);
    assert.ok(block, "README: Moving to Azure has an sh block");
    const second = launch("bash", ["-euo", "pipefail", "-c", block], env);
    const code = await second.exited;
    assert.equal(code, 0, second.log.text);
    const out = second.log.text;
    assert.match(out, /^submissions\s+10000\s+10000\s+ok$/m);
    assert.match(out, /^attachments\s+250\s+250\s+ok$/m);
    assert.doesNotMatch(out, /DIFFERS/);
    const already = /records: (\d+) copied, (\d+) already there/.exec(out);
    assert.ok(already && Number(already[2]) > 0 && Number(already[1]) > 0, out);
    assert.equal(Number(already[1]) + Number(already[2]), total);
    assert.match(out, /files: \d+ copied, \d+ already there, 0 missing in DATA_DIR \(of 250\)/);

    // start:azure serves what the standalone server served.
    const server = launch("npm", ["run", "start:azure"], {
      ...env,
      PORT: "0",
      COSMOS_RECOVERY_INTERVAL_MS: "0",
      // The stand-in sorts S5's partition without an index, in seconds on a busy machine.
      COSMOS_REQUEST_TIMEOUT_MS: "120000",
    });
    const [, origin] = await waitFor(server, /listening on (http:\/\/[\d.:]+)/, 60);
    const azure = await answersOf(
      origin as string,
      seeded.alice,
      seeded.formId,
      seeded,
      seeded.customer,
    ).catch((error: Error) => {
      // What the server logged says why (a 503 is logged with its cause).
      throw new Error(`${error.message}\nstart:azure said:\n${server.log.text}`, { cause: error });
    });
    assert.deepEqual(comparable(azure), comparable(seeded.answers));
    assert.equal(azure.download, seeded.fileBytes);
    killGroup(server.child);
  });
});
