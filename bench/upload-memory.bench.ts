/**
 * Shows how much resident memory a 100 MB upload (S3) costs the standalone server, which
 * should stream it to disk rather than hold it: the server runs as a child process over a
 * temp data folder, the upload is generated while it is sent, and the server's `VmRSS` is
 * sampled every 20 ms (beside the kernel's high-water mark), with an idle spell and a 1 MB
 * upload measured in the same run as the baseline. Each 100 MiB upload follows one to a
 * plain `node:http` server piping the request to a file (`pipe-floor-server.ts`), the floor
 * both goals are measured against (docs/design.md §22): a rate at least 0.8 of the floor's,
 * and a rise of resident memory within {@link marginMiB} MiB of the floor's. The floor runs
 * in a fresh process each round, so its rise is that of a process's first upload: a fresh
 * Node process keeps about 35 MiB of socket read buffers until its first GC, whoever handles
 * them, which is why a fixed ceiling (32 MiB, once) cannot be met on this machine by any
 * server, the plain pipe included.
 * Reports, never asserts: it fails only when an upload fails or stores the wrong size.
 * Run: `node --conditions=formwork-source --import tsx bench/upload-memory.bench.ts`.
 */
import { mkdtemp, open, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { uploadFile } from "./multipart-upload.ts";
import { type MemoryTrace, sampleWhile } from "./resident-memory.ts";
import { adminSecret, createBenchForm } from "./seeded-form.ts";
import { freePort, type StandaloneServer, startServer, stopServer } from "./standalone-process.ts";

const megabyte = 1024 * 1024;
const largeUpload = 100 * megabyte;
/** How far the server's rise may exceed the pipe floor's, in MiB (docs/design.md §22). */
const marginMiB = 4;
/** The upload's rate as a share of the pipe floor's, in the same run (docs/design.md §22). */
const targetRatio = 0.8;
/** Rounds of (pipe floor, server) uploads of 100 MiB; the median round is shown. */
const ROUNDS = 3;
/** The size of a stored attachment's bytes: the fs blob file less its info line. */
async function storedSize(dataDir: string, formId: string, attachmentId: string) {
  const file = await open(join(dataDir, "files", formId, attachmentId), "r");
  try {
    const { size } = await file.stat();
    const head = new Uint8Array(64 * 1024);
    const { bytesRead } = await file.read(head, 0, head.length, 0);
    return size - (head.subarray(0, bytesRead).indexOf(0x0a) + 1);
  } finally {
    await file.close();
  }
}

/** Uploads `size` bytes to the form and checks the answer and the stored file. */
async function upload(server: StandaloneServer, dataDir: string, formId: string, size: number) {
  const url = `${server.base}/api/form/${formId}/submissionattachment`;
  const answer = await uploadFile(url, "cv_2", size);
  const envelope = JSON.parse(answer.body) as { id?: string };
  if (answer.status !== 200 || !envelope.id) {
    throw new Error(`upload of ${size} bytes answered ${answer.status}: ${answer.body}`);
  }
  const stored = await storedSize(dataDir, formId, envelope.id);
  if (stored !== size) throw new Error(`upload of ${size} bytes stored ${stored} bytes`);
}

function row(scenario: string, trace: MemoryTrace, bytes: number) {
  const seconds = trace.milliseconds / 1000;
  const peak = Math.max(trace.sampledPeak, trace.kernelPeak);
  return {
    scenario,
    "RSS before MiB": trace.before.toFixed(1),
    "sampled peak MiB": trace.sampledPeak.toFixed(1),
    "kernel peak MiB": trace.kernelPeak.toFixed(1),
    "RSS after MiB": trace.after.toFixed(1),
    "rise MiB": (peak - trace.before).toFixed(1),
    seconds: seconds.toFixed(2),
    "MiB/s": bytes ? (bytes / megabyte / seconds).toFixed(0) : "-",
    samples: trace.samples,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

/**
 * A 100 MiB upload to the plain `node:http` pipe of `pipe-floor-server.ts`, in a fresh
 * process after a 1 MiB warm-up: its rate in MiB/s and its RSS rise in MiB, the baseline of
 * a first upload (Node keeps the socket's read buffers until a GC, as it does for the service).
 */
async function pipeFloor(): Promise<{ rate: number; rise: number }> {
  const folder = await mkdtemp(join(tmpdir(), "formwork-pipe-floor-"));
  const floor = await startServer(
    { PORT: String(await freePort()), HOST: "127.0.0.1", DATA_DIR: folder },
    "bench/pipe-floor-server.ts",
  );
  try {
    await uploadFile(`${floor.base}/warm-up`, "cv_2", megabyte);
    await sleep(500);
    const { result: answer, trace } = await sampleWhile(floor.pid, () =>
      uploadFile(`${floor.base}/upload`, "cv_2", largeUpload),
    );
    if (answer.status !== 200) throw new Error(`the pipe floor answered ${answer.status}`);
    return {
      rate: largeUpload / megabyte / (trace.milliseconds / 1000),
      rise: Math.max(trace.sampledPeak, trace.kernelPeak) - trace.before,
    };
  } finally {
    await stopServer(floor);
    await rm(folder, { recursive: true, force: true });
  }
}

const dataDir = await mkdtemp(join(tmpdir(), "formwork-upload-bench-"));
const server = await startServer({
  PORT: String(await freePort()),
  HOST: "127.0.0.1",
  DATA_DIR: dataDir,
  ADMIN_SECRET: adminSecret,
  MAX_UPLOAD_BYTES: String(200 * megabyte),
  // Room for every round's upload, none of which is ever claimed by a submission, from one
  // address: an address may hold a quarter of a form's unclaimed bytes (docs/design.md §15).
  MAX_UNCLAIMED_UPLOAD_BYTES: String(4 * (ROUNDS + 1) * 200 * megabyte),
});
try {
  const formId = await createBenchForm(server.base);
  // Unmeasured: loads what the first upload loads (the country database, lazy code paths).
  await upload(server, dataDir, formId, megabyte);
  await sleep(500);
  const idle = await sampleWhile(server.pid, () => sleep(1000));
  const small = await sampleWhile(server.pid, () => upload(server, dataDir, formId, megabyte));
  const rows = [row("idle, 1 s", idle.trace, 0), row("upload 1 MiB", small.trace, megabyte)];
  const rises: number[] = [];
  const ratios: number[] = [];
  const floors: number[] = [];
  const floorRises: number[] = [];
  const rates: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    // The floor and the server take turns, so that both see the same load on the machine.
    const floor = await pipeFloor();
    await sleep(500);
    const large = await sampleWhile(server.pid, () => upload(server, dataDir, formId, largeUpload));
    rows.push(row(`upload 100 MiB, round ${round}`, large.trace, largeUpload));
    const rate = largeUpload / megabyte / (large.trace.milliseconds / 1000);
    floors.push(floor.rate);
    floorRises.push(floor.rise);
    rates.push(rate);
    ratios.push(rate / floor.rate);
    rises.push(Math.max(large.trace.sampledPeak, large.trace.kernelPeak) - large.trace.before);
  }
  console.log(`server pid ${server.pid}; resident memory (VmRSS) sampled every 20 ms`);
  console.table(rows);
  const rise = median(rises);
  const ratio = median(ratios);
  const first = rises[0] ?? 0;
  const floorRise = median(floorRises);
  const ceiling = floorRise + marginMiB;
  console.table([
    {
      figure: "first 100 MiB upload of the process, RSS rise MiB",
      "each round": `${first.toFixed(1)} (pipe floor, fresh each round: ${floorRises.map((value) => value.toFixed(1)).join(" ")})`,
      median: `${first.toFixed(1)} vs ${floorRise.toFixed(1)} for the pipe floor`,
      goal: `≤ floor + ${marginMiB} (${ceiling.toFixed(1)})`,
      met: first <= ceiling ? "yes" : "NO",
    },
    {
      figure: "100 MiB upload, RSS rise MiB",
      "each round": rises.map((value) => value.toFixed(1)).join(" "),
      median: `${rise.toFixed(1)} vs ${floorRise.toFixed(1)} for the pipe floor`,
      goal: `≤ floor + ${marginMiB} (${ceiling.toFixed(1)})`,
      met: rise <= ceiling ? "yes" : "NO",
    },
    {
      figure: "100 MiB upload, × the node:http pipe to a file",
      "each round": ratios.map((value) => value.toFixed(2)).join(" "),
      median: `${ratio.toFixed(2)} (${median(rates).toFixed(0)} vs ${median(floors).toFixed(0)} MiB/s)`,
      goal: `≥ ${targetRatio}`,
      met: ratio >= targetRatio ? "yes" : "NO",
    },
  ]);
} finally {
  await stopServer(server);
  await rm(dataDir, { recursive: true, force: true });
}
