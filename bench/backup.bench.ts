/**
 * Shows what an online backup (docs/design.md §23) costs the requests the server goes on
 * serving: S2's requests a second on the standalone server (`npm start`'s bundle) while
 * backups of its data folder run one after another for the whole load (the admin API that
 * `npm run admin -- backup` calls), at the server's default pace and with no pace, beside
 * S2's rate on the same server and data without a backup, measured in the same run. The
 * data: a form of {@link SUBMISSIONS} submissions seeded straight into the store, and
 * {@link FILES} attachment files of {@link FILE_BYTES} bytes put through the fs blob store.
 * With two cores or more, the server runs on core 0, and this process (the load generator
 * and the backups' reader) on core 1 (`taskset`). Rounds alternate the three, median of
 * {@link ROUNDS}.
 * Run: `node --conditions=formwork-source --import tsx bench/backup.bench.ts`.
 */
import { execFile } from "node:child_process";
import { mkdtemp, rename, rm } from "node:fs/promises";
import { availableParallelism, tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import autocannon from "autocannon";
import { createFsBlobStore } from "../adapters/fs/index.ts";
import { DEFAULT_MAX_RATE } from "../examples/standalone/backup-route.ts";
import { adminSecret, seedForm } from "./seeded-form.ts";
import { freePort, startServer, stopServer } from "./standalone-process.ts";

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

/**
 * Backs up the server's data again and again until `done()`, reading each archive over the
 * admin API as `npm run admin -- backup` does and discarding it: what is measured is the
 * server's side (gathering, archiving, sending), not the CLI's extraction and fsyncs, which
 * run on the machine of whoever takes the backup.
 * @param started resolved once the first backup's archive has begun to arrive
 */
async function backUpUntil(base: string, rate: string, done: () => boolean, started: () => void) {
  let count = 0;
  let bytes = 0;
  let seconds = 0;
  while (!done()) {
    const began = performance.now();
    const query = rate === "" ? "" : `?max_rate=${rate}`;
    const response = await fetch(`${base}/api/admin/backup${query}`, {
      method: "POST",
      headers: { AdminSecret: adminSecret },
    });
    if (response.status !== 200 || !response.body) {
      throw new Error(`backup refused: ${response.status} ${await response.text()}`);
    }
    started();
    for await (const chunk of response.body) bytes += chunk.byteLength;
    seconds += (performance.now() - began) / 1000;
    count++;
  }
  return { count, bytes, seconds };
}

/** S2's load on `base` for {@link SECONDS}, with backups running all through it or not. */
async function measure(base: string, formId: string, rate: string | undefined) {
  const options = {
    url: `${base}/api/form/${formId}/submission`,
    method: "POST" as const,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(submission),
    connections: CONNECTIONS,
  };
  await autocannon({ ...options, duration: WARM_UP_SECONDS });
  let loading = true;
  let backups: ReturnType<typeof backUpUntil> | undefined;
  if (rate !== undefined) {
    await new Promise<void>((resolve, reject) => {
      backups = backUpUntil(base, rate, () => !loading, resolve);
      backups.catch(reject);
    });
  }
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
  const unpaced: Measured[] = [];
  try {
    for (let round = 0; round < ROUNDS; round++) {
      without.push(await measure(server.base, formId, undefined));
      during.push(await measure(server.base, formId, ""));
      unpaced.push(await measure(server.base, formId, "0"));
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
    "backup MiB/s": runs.some((r) => r.copied?.count)
      ? (
          runs.reduce((sum, r) => sum + (r.copied?.bytes ?? 0), 0) /
          1024 /
          1024 /
          runs.reduce((sum, r) => sum + (r.copied?.seconds ?? 0), 0)
        ).toFixed(1)
      : "",
  });
  console.log(
    `${SUBMISSIONS} submissions and ${FILES} files of ${FILE_BYTES / 1024} KiB; ${CONNECTIONS} connections, ` +
      `${SECONDS} s measured, median of ${ROUNDS} rounds; ${pinned ? "server on core 0, load and backup reader on core 1" : "not pinned (one core)"}`,
  );
  console.table([
    row("S2 without a backup (baseline)", without),
    row(`S2 while backups run (default pace, ${DEFAULT_MAX_RATE} MiB/s)`, during),
    row("S2 while backups run (max_rate=0: no limit)", unpaced),
  ]);
  const ratio = perSecond(during) / perSecond(without);
  console.log(
    `goal: S2 during a backup (default pace) ≥ ${GOAL} × without: ${ratio.toFixed(3)} ${ratio >= GOAL ? "met" : "NOT met"}`,
  );
  const full = perSecond(unpaced) / perSecond(without);
  console.log(`without a pace (max_rate=0): ${full.toFixed(3)} × (no goal: the pace is the cure)`);
} finally {
  await rm(dataDir, { recursive: true, force: true });
}
