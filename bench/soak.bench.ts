/**
 * The soak (docs/design.md §22): the standalone server (`npm start`'s bundle on the lowdb
 * store, fresh data folder, request log off) under a steady mix for {@link SECONDS}: every
 * tenth of a second {@link S2_PER_TICK} S2s, {@link S3_PER_TICK} S3 uploads of
 * {@link UPLOAD_BYTES} bytes each claimed by an S2, and one S5 page of 100 every other tick,
 * on a form whose webhook delivers every submission to a loopback receiver
 * (`loopback-receiver.ts`, its own process). Its resident memory is sampled every second.
 * The first fifth is warm-up; the rest is cut in four quarters, and the goal is that the
 * quarters' medians lie within 10 % of each other: memory flat under a load that never
 * ends, while the data on disk grows.
 * Run: `node --conditions=formwork-source --import tsx bench/soak.bench.ts` after
 * `npm run build:server`; `BENCH_SOAK_SECONDS` shortens it (default 600).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { uploadFile } from "./multipart-upload.ts";
import { startReceiver, webhookSecret } from "./receiver-process.ts";
import { residentMiB } from "./resident-memory.ts";
import { adminSecret, formBody, postJson } from "./seeded-form.ts";
import { freePort, type StandaloneServer, startServer, stopServer } from "./standalone-process.ts";

const SECONDS = Number(process.env.BENCH_SOAK_SECONDS ?? 600);
const TICK_MS = 100;
const S2_PER_TICK = 20;
const S3_PER_TICK = 2;
const UPLOAD_BYTES = 16 * 1024;
const FLAT = 0.1;

/** An account and the bench form with a webhook to `hookUrl`. */
async function setUp(server: StandaloneServer, hookUrl: string) {
  const account = await postJson(
    server.base,
    "/api/admin/accounts",
    { email: "soak@example.com" },
    { AdminSecret: adminSecret },
  );
  const tokens = { TokenId: String(account.token_id), TokenSecret: String(account.token_secret) };
  const formId = String((await postJson(server.base, "/api/restricted/form", formBody, tokens)).id);
  const hook = { webhook_name: "soak", webhook_url: hookUrl, webhook_shared_secret: webhookSecret };
  await postJson(server.base, `/api/restricted/form/${formId}/submissionwebhook`, hook, tokens);
  return { formId, tokens };
}

/** The load of one tick; @returns how many of each request it sent. */
function tickLoad(server: StandaloneServer, formId: string, tokens: Record<string, string>) {
  const s2 = (fields: { unique_system_name: string; submitted_value: string }[]) =>
    postJson(server.base, `/api/form/${formId}/submission`, { form_fields: fields });
  const name = { unique_system_name: "name_1", submitted_value: "Ada" };
  const s3ThenS2 = async () => {
    const url = `${server.base}/api/form/${formId}/submissionattachment`;
    const answer = await uploadFile(url, "cv_2", UPLOAD_BYTES);
    const id = (JSON.parse(answer.body) as { id?: string }).id;
    if (answer.status !== 200 || !id) throw new Error(`S3 answered ${answer.status}`);
    await s2([name, { unique_system_name: "cv_2", submitted_value: id }]);
  };
  const s5 = async () => {
    const url = `${server.base}/api/restricted/form/${formId}/submissions?batchSize=100`;
    const response = await fetch(url, { headers: tokens });
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`S5 answered ${response.status}`);
  };
  return async (tick: number) => {
    const work: Promise<unknown>[] = [];
    for (let n = 0; n < S2_PER_TICK; n++) work.push(s2([name]));
    for (let n = 0; n < S3_PER_TICK; n++) work.push(s3ThenS2());
    if (tick % 2 === 0) work.push(s5());
    await Promise.all(work);
    return { s2: S2_PER_TICK + S3_PER_TICK, s3: S3_PER_TICK, s5: tick % 2 === 0 ? 1 : 0 };
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;
const dataDir = await mkdtemp(join(tmpdir(), "formwork-soak-"));
const receiver = await startReceiver();
const server = await startServer({
  DATA_DIR: dataDir,
  PORT: String(await freePort()),
  ADMIN_SECRET: adminSecret,
  ALLOW_PRIVATE_WEBHOOKS: "1",
  // An upload holds its largest size against the form's unclaimed bytes while it streams.
  MAX_UPLOAD_BYTES: String(1024 * 1024),
  RATE_LIMIT_PUBLIC_PER_MINUTE: "0",
  LOG_LEVEL: "warn",
});
try {
  const { formId, tokens } = await setUp(server, receiver.url);
  const idle = residentMiB(server.pid);
  const samples: { second: number; mib: number }[] = [];
  const started = performance.now();
  const sampler = setInterval(() => {
    const second = (performance.now() - started) / 1000;
    samples.push({ second, mib: residentMiB(server.pid) });
    if (samples.length % 60 === 0)
      console.log(`  ${second.toFixed(0)} s: ${samples.at(-1)?.mib.toFixed(1)} MiB`);
  }, 1000);
  const sent = { s2: 0, s3: 0, s5: 0 };
  const tick = tickLoad(server, formId, tokens);
  try {
    for (let n = 0; performance.now() - started < SECONDS * 1000; n++) {
      const tickStart = performance.now();
      const counts = await tick(n);
      sent.s2 += counts.s2;
      sent.s3 += counts.s3;
      sent.s5 += counts.s5;
      const rest = TICK_MS - (performance.now() - tickStart);
      if (rest > 0) await new Promise((resolve) => setTimeout(resolve, rest));
    }
  } finally {
    clearInterval(sampler);
  }
  const measured = samples.filter((s) => s.second >= SECONDS / 5);
  const quarter = Math.ceil(measured.length / 4);
  const quarters = [0, 1, 2, 3].map((q) =>
    median(measured.slice(q * quarter, (q + 1) * quarter).map((s) => s.mib)),
  );
  const spread = Math.max(...quarters) / Math.min(...quarters) - 1;
  const delivered = await receiver.ask({});
  console.log(
    `${SECONDS} s: ${sent.s2} S2s (${sent.s3} claiming an S3 upload), ${sent.s5} S5 pages, ${delivered} webhook deliveries received; RSS idle ${idle.toFixed(1)} MiB, highest ${Math.max(...samples.map((s) => s.mib)).toFixed(1)} MiB`,
  );
  console.table([
    {
      figure: "RSS median of each quarter after the warm-up, MiB",
      value: quarters.map((q) => q.toFixed(1)).join(" "),
      goal: "-",
      met: "-",
    },
    {
      figure: "highest quarter over lowest",
      value: `+${(spread * 100).toFixed(1)} %`,
      goal: `≤ +${FLAT * 100} %`,
      met: spread <= FLAT ? "yes" : "NO",
    },
  ]);
} finally {
  await stopServer(server);
  receiver.stop();
  await rm(dataDir, { recursive: true, force: true });
}
