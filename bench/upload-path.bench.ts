/**
 * S3's own path in process, without HTTP or a second process: a 100 MiB multipart body of
 * fresh 64 KiB buffers (as a socket delivers them) through `service.fetch` into the fs blob
 * store over lowdb, beside the floor of piping the same body to a file in the same run.
 * Two S3 figures: the body passed as the host's Node stream (`ConnectionInfo.body`, as the
 * standalone server does) and as a web stream in `request.body` (embedded mounts). It
 * prints MiB/s and the process's CPU time per upload (both threads and the file system's
 * pool), the median of the rounds after a warm-up. Reports, never asserts: it fails only
 * when an upload fails or stores the wrong size. Run:
 * `node --conditions=formwork-source --import tsx bench/upload-path.bench.ts`.
 */
import { createWriteStream } from "node:fs";
import { mkdtemp, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pipeline } from "node:stream/promises";
import { createFsBlobStore } from "../adapters/fs/index.ts";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { createFormService } from "../src/index.ts";
import { type MultipartBody, multipartBody, multipartStream } from "./multipart-upload.ts";
import { adminSecret, createBenchForm } from "./seeded-form.ts";

const megabyte = 1024 * 1024;
const largeUpload = 100 * megabyte;
const ROUNDS = 3;

const folder = await mkdtemp(join(tmpdir(), "formwork-upload-path-"));
const service = createFormService({
  store: createLowdbStore({ directory: join(folder, "records") }),
  blobs: createFsBlobStore({
    directory: join(folder, "files"),
    storageUrl: "http://bench/storage",
    signingSecret: "bench signing secret",
  }),
  adminSecret,
  limits: { uploadBytes: 200 * megabyte, unclaimedUploadBytes: 100 * 200 * megabyte },
  sweepIntervalMs: 0,
  webhookPollMs: 0,
});

/** The body as a web stream pulling the same fresh buffers, as a web host hands it over. */
function webBody(body: MultipartBody): ReadableStream<Uint8Array> {
  const chunks = multipartStream(body)[Symbol.asyncIterator]();
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await chunks.next();
      if (next.done) controller.close();
      else controller.enqueue(next.value as Uint8Array);
    },
  });
}

/** Uploads `size` bytes through `service.fetch`, the body passed as `how`. */
async function upload(formId: string, size: number, how: "host" | "web") {
  const body = multipartBody("cv_2", size);
  const url = `http://bench/api/form/${formId}/submissionattachment`;
  const headers = { "content-type": body.contentType, "content-length": String(body.length) };
  // A streamed body needs `duplex`, which the DOM typings do not know yet.
  const init: RequestInit =
    how === "web"
      ? ({ method: "POST", headers, body: webBody(body), duplex: "half" } as RequestInit)
      : { method: "POST", headers };
  const request = new Request(url, init);
  const answer = await service.fetch(
    request,
    how === "host" ? { body: multipartStream(body) } : undefined,
  );
  const envelope = (await answer.json()) as { id?: string };
  if (answer.status !== 200 || !envelope.id) {
    throw new Error(`upload answered ${answer.status}: ${JSON.stringify(envelope)}`);
  }
  const stored = await stat(join(folder, "files", formId, envelope.id));
  // The fs blob file starts with its info line: at least the body, never much more.
  if (stored.size < size || stored.size > size + 4096) {
    throw new Error(`upload of ${size} bytes stored a file of ${stored.size} bytes`);
  }
}

/** Pipes the same body to a file: the floor. */
async function floor(size: number) {
  const file = join(folder, `floor-${size}`);
  await pipeline(multipartStream(multipartBody("cv_2", size)), createWriteStream(file));
  await rm(file);
}

/** Runs `work` once. @returns MiB/s and CPU milliseconds. */
async function measure(work: () => Promise<void>) {
  const cpu = process.cpuUsage();
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  return { rate: largeUpload / megabyte / seconds, cpuMs: (used.user + used.system) / 1000 };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

try {
  const formId = await createBenchForm(service);
  const ways = {
    "pipe to a file (floor)": (size: number) => floor(size),
    "S3, host's Node stream": (size: number) => upload(formId, size, "host"),
    "S3, web request.body": (size: number) => upload(formId, size, "web"),
  };
  // Unmeasured: the first rounds compile what the measured ones run.
  for (const run of Object.values(ways)) for (let n = 0; n < 3; n++) await run(8 * megabyte);
  const seen = new Map<string, { rates: number[]; cpu: number[] }>();
  for (let round = 0; round < ROUNDS; round++) {
    for (const [name, run] of Object.entries(ways)) {
      const figure = await measure(() => run(largeUpload));
      const entry = seen.get(name) ?? { rates: [], cpu: [] };
      entry.rates.push(figure.rate);
      entry.cpu.push(figure.cpuMs);
      seen.set(name, entry);
    }
  }
  const floorRate = median(seen.get("pipe to a file (floor)")?.rates ?? []);
  console.table(
    [...seen].map(([name, { rates, cpu }]) => ({
      "100 MiB in process": name,
      "MiB/s each round": rates.map((rate) => rate.toFixed(0)).join(" "),
      "MiB/s median": median(rates).toFixed(0),
      "× floor": (median(rates) / floorRate).toFixed(2),
      "CPU ms median": median(cpu).toFixed(0),
    })),
  );
} finally {
  await service.close();
  await rm(folder, { recursive: true, force: true });
}
