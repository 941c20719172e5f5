/**
 * Webhook throughput (docs/design.md §22): how many deliveries a second the outbox worker
 * makes on the lowdb store to a fast loopback receiver (`loopback-receiver.ts`, its own
 * process), beside a baseline measured in the same run, the same signed POSTs sent straight
 * to the receiver by the same HTTP client with the same concurrency. Each round queues
 * {@link DELIVERIES} deliveries with the worker off (S2s through the service), then starts
 * a service with the worker on the same data folder and times until the receiver has them
 * all. Then S2's latency (p50 of sequential posts) while the worker delivers to that
 * receiver answering at once and answering after {@link SLOW_MS} ms: it should not depend
 * on the receiver.
 * Run: `node --conditions=formwork-source --import tsx bench/webhook-throughput.bench.ts`.
 */
import { setMaxListeners } from "node:events";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { createFormService, createHttpWebhookSender, type FormService } from "../src/index.ts";
import { attemptDelivery } from "../src/webhooks/http-attempt.ts";
import { type Receiver, startReceiver, webhookSecret } from "./receiver-process.ts";
import { formBody, postJson } from "./seeded-form.ts";

const DELIVERIES = 3000;
const ROUNDS = 3;
const CONCURRENCY = 64;
const GOAL = 1000;
const SLOW_MS = 500;
const LATENCY_POSTS = 300;

async function until(receiver: Receiver, count: number) {
  while ((await receiver.ask({})) < count) await new Promise((r) => setTimeout(r, 5));
}

/** A service on the lowdb store in `directory`; `pollMs` 0: no worker. */
function service(directory: string, pollMs: number) {
  return createFormService({
    store: createLowdbStore({ directory }),
    allowPrivateWebhookDestinations: true,
    webhookSender: createHttpWebhookSender({ allowPrivateDestinations: true }),
    webhookPollMs: pollMs,
    webhookConcurrency: CONCURRENCY,
    adminSecret: "bench",
  });
}

const call = postJson;

/** An account, a form with a webhook to `url`; @returns S2 of that form. */
async function formWithHook(s: FormService, url: string) {
  const account = await call(
    s,
    "/api/admin/accounts",
    { email: "b@example.com" },
    {
      AdminSecret: "bench",
    },
  );
  const as = { TokenId: String(account.token_id), TokenSecret: String(account.token_secret) };
  const formId = String((await call(s, "/api/restricted/form", formBody, as)).id);
  const hook = { webhook_name: "r", webhook_url: url, webhook_shared_secret: webhookSecret };
  await call(s, `/api/restricted/form/${formId}/submissionwebhook`, hook, as);
  const body = { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }] };
  return () => call(s, `/api/form/${formId}/submission`, body);
}

/** Deliveries a second of the worker, from a queue of {@link DELIVERIES}. */
async function workerRate(receiver: Receiver) {
  const directory = await mkdtemp(join(tmpdir(), "formwork-webhook-bench-"));
  try {
    const queuing = service(directory, 0);
    const submit = await formWithHook(queuing, receiver.url);
    for (let n = 0; n < DELIVERIES; n += 50) await Promise.all(Array.from({ length: 50 }, submit));
    await queuing.close();
    await receiver.ask({ reset: true });
    const started = performance.now();
    const delivering = service(directory, 1000);
    await until(receiver, DELIVERIES);
    const seconds = (performance.now() - started) / 1000;
    await delivering.close();
    return DELIVERIES / seconds;
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The same signed POSTs sent straight by the webhook HTTP client, as many at once. */
async function directRate(receiver: Receiver) {
  await receiver.ask({ reset: true });
  const payload = JSON.stringify({ type: "form_submission.created", data: { n: 1 } });
  const signal = new AbortController().signal;
  // Every lane's attempts listen to it, as the worker's deliveries listen to its own.
  setMaxListeners(0, signal);
  let next = 0;
  const started = performance.now();
  const lane = async () => {
    while (next++ < DELIVERIES) {
      const message = {
        url: receiver.url,
        id: `msg_${next}`,
        payload,
        secret: webhookSecret,
        headers: {},
      };
      await attemptDelivery(message, { timeoutMs: 10_000, allowPrivate: true, signal });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  await until(receiver, DELIVERIES);
  return DELIVERIES / ((performance.now() - started) / 1000);
}

/** p50 of {@link LATENCY_POSTS} sequential S2s, in ms, while the worker delivers them. */
async function s2Latency(receiver: Receiver, delayMs: number) {
  await receiver.ask({ delayMs });
  const directory = await mkdtemp(join(tmpdir(), "formwork-webhook-bench-"));
  const s = service(directory, 1000);
  try {
    const submit = await formWithHook(s, receiver.url);
    const times: number[] = [];
    for (let n = 0; n < LATENCY_POSTS; n++) {
      const started = performance.now();
      await submit();
      times.push(performance.now() - started);
    }
    return median(times);
  } finally {
    await s.close();
    await rm(directory, { recursive: true, force: true });
    await receiver.ask({ delayMs: 0 });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

const receiver = await startReceiver();
try {
  const rows = [];
  const worker: number[] = [];
  const direct: number[] = [];
  const fast: number[] = [];
  const slow: number[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    direct.push(await directRate(receiver));
    worker.push(await workerRate(receiver));
    fast.push(await s2Latency(receiver, 0));
    slow.push(await s2Latency(receiver, SLOW_MS));
    rows.push({
      round,
      "worker deliveries/s": Math.round(worker.at(-1) ?? 0),
      "direct client/s (baseline)": Math.round(direct.at(-1) ?? 0),
      "S2 p50 ms, fast receiver": (fast.at(-1) ?? 0).toFixed(2),
      [`S2 p50 ms, receiver ${SLOW_MS} ms`]: (slow.at(-1) ?? 0).toFixed(2),
    });
  }
  console.table(rows);
  const rate = median(worker);
  const ratio = median(slow) / median(fast);
  console.log(
    `webhook deliveries on lowdb: ${Math.round(rate)}/s, median of ${ROUNDS} ` +
      `(goal >= ${GOAL}/s: ${rate >= GOAL ? "met" : "not met"}; baseline, the same client ` +
      `straight to the receiver at ${CONCURRENCY} at once: ${Math.round(median(direct))}/s)`,
  );
  console.log(
    `S2 p50 with a receiver answering after ${SLOW_MS} ms / answering at once: ` +
      `${ratio.toFixed(2)} (goal: independent, <= 1.25: ${ratio <= 1.25 ? "met" : "not met"})`,
  );
} finally {
  receiver.stop();
}
