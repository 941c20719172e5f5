/**
 * Shows what an online backup (docs/design.md §23) costs the requests the server goes on
 * serving: S2's requests a second on the standalone server (`npm start`'s bundle) while
 * `npm run admin -- backup` copies its data folder, again and again for the whole load,
 * beside S2's rate on the same server and data without a backup, measured in the same run.
 * The data: a form of {@link SUBMISSIONS} submissions seeded straight into the store, and
 * {@link FILES} attachment files of {@link FILE_BYTES} bytes put through the fs blob store.
 * With two cores or more, the server runs on core 0, and this process (the load generator)
 * and the CLI on core 1 (`taskset`). Rounds alternate the two, median of {@link ROUNDS}.
 * Run: `node --conditions=formwork-source --import tsx bench/backup.bench.ts`.
 */
import { execFile, spawn } from "node:child_process";
import { mkdtemp, rename, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";
import { createFsBlobStore } from "../adapters/fs/index.ts";
import { adminSecret, seedForm } from "./seeded-form.ts";
import { freePort, root, startServer, stopServer } from "./standalone-process.ts";

const SUBMISSIONS = 5_000;
const FILES = 1_000;
const FILE_BYTES = 64 * 1024;
const CONNECTIONS = 10;
const WARM_UP_SECONDS = 1;
const SECONDS = 5;
const ROUNDS = 3;
const GOAL = 0.8;
const submission = { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }] };
const run = promisify(execFile);
const pinned = availableParallelism() >= 2;

/** Pins every thread of `pid` to `cores` (a taskset list), when the machine has two cores. */
async function pin(pid: number, cores: string): Promise<void> {
  if (pinned) await run("taskset", ["-a", "-cp", cores, String(pid)]);
}

/** A data folder as `npm start` keeps it: the seeded store in `records/`, files in `files/`. */
async function seed() {
  const seeded = await seedForm(SUBMISSIONS);
  const dataDir = await mkdtemp(join(tmpdir(), "formwork-bench-backup-"));
  await rename(seeded.directory, join(dataDir, "records"));
  const blobs = createFsBlobStore({
    directory: join(dataDir, "files"),
    storageUrl: "http://localhost/storage",
    signingSecret: "bench",
  });
  const bytes = new Uint8Array(FILE_BYTES).fill(97);
  for (let n = 0; n < FILES; n++) {
    const body = new Blob([bytes]).stream();
    await blobs.put(seeded.formId, `f${n}`, body, { contentType: "text/plain", filename: "a.txt" });
  }
  return { dataDir, formId: seeded.formId };
}

/** Runs `npm run admin -- backup` into new folders one after another until `done()`. */
async function backUpUntil(base: string, done: () => boolean) {
  let count = 0;
  let seconds = 0;
  while (!done()) {
    const into = await mkdtemp(join(tmpdir(), "formwork-bench-copy-"));
    const started = performance.now();
    const args = [
      "--conditions=formwork-source",
      "--import",
      "tsx",
      "examples/standalone/admin-cli.ts",
    ];
    const child = spawn(process.execPath, [...args, "backup", join(into, "copy"), "--url", base], {
      cwd: root,
      env: { ...process.env, ADMIN_SECRET: adminSecret },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let errors = "";
    child.stderr.on("data", (chunk) => (errors += chunk));
    const code = await new Promise((resolve) => child.once("exit", resolve));
    if (code !== 0) throw new Error(`backup failed (${code}): ${errors}`);
    seconds += (performance.now() - started) / 1000;
    count++;
    await rm(into, { recursive: true, force: true });
  }
  return { count, seconds };
}

/** S2's load on `base` for {@link SECONDS}, with backups running through it or not. */
async function measure(base: string, formId: string, withBackup: boolean) {
  const options = {
    url: `${base}/api/form/${formId}/submission`,
    method: "POST" as const,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(submission),
    connections: CONNECTIONS,
  };
  await autocannon({ ...options, duration: WARM_UP_SECONDS });
  let loading = true;
  const backups = withBackup ? backUpUntil(base, () => !loading) : undefined;
  const result = await autocannon({ ...options, duration: SECONDS });
  loading = false;
  const copied = await backups;
  return { result, copied };
}

type Measured = Awaited<ReturnType<typeof measure>>;
const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] as number;
const perSecond = (runs: Measured[]) => median(runs.map((r) => r.result.requests.average));

const { dataDir, formId } = await seed();
try {
  await pin(process.pid, "1");
  const server = await startServer({
    DATA_DIR: dataDir,
    PORT: String(await freePort()),
    ADMIN_SECRET: adminSecret,
    RATE_LIMIT_PUBLIC_PER_MINUTE: "0",
    LOG_LEVEL: "warn",
  });
  await pin(server.pid, "0");
  const without: Measured[] = [];
  const during: Measured[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      without.push(await measure(server.base, formId, false));
      during.push(await measure(server.base, formId, true));
    }
  } finally {
    await stopServer(server);
  }
  const row = (scenario: string, runs: Measured[]) => ({
    scenario,
    "requests/s": Math.round(perSecond(runs)),
    "p99 ms": median(runs.map((r) => r.result.latency.p99)),
    "non-2xx": runs.reduce((sum, r) => sum + r.result.non2xx + r.result.errors, 0),
    backups: runs.reduce((sum, r) => sum + (r.copied?.count ?? 0), 0),
    "s per backup": runs.some((r) => r.copied?.count)
      ? (
          runs.reduce((sum, r) => sum + (r.copied?.seconds ?? 0), 0) /
          runs.reduce((sum, r) => sum + (r.copied?.count ?? 0), 0)
        ).toFixed(2)
      : "",
  });
  console.log(
    `${SUBMISSIONS} submissions and ${FILES} files of ${FILE_BYTES / 1024} KiB; ${CONNECTIONS} connections, ` +
      `${SECONDS} s measured, median of ${ROUNDS} rounds; ${pinned ? "server on core 0, load and CLI on core 1" : "not pinned (one core)"}`,
  );
  console.table([
    row("S2 without a backup (baseline)", without),
    row("S2 while backups run", during),
  ]);
  const ratio = perSecond(during) / perSecond(without);
  console.log(
    `goal: S2 during a backup ≥ ${GOAL} × without: ${ratio.toFixed(3)} ${ratio >= GOAL ? "met" : "NOT met"}`,
  );
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
