/**
 * S2 (post a submission) on the Cosmos DB store, before and after the crash-exact writes
 * (adapters/cosmos/README.md, "Crash-exact writes"): requests a second and p50 latency of
 * S2 through `service.fetch` in this process, {@link CONCURRENCY} in flight for
 * {@link SECONDS} s after a {@link WARM_UP_SECONDS} s warm-up, on the Cosmos DB stand-in
 * (`@vercel/cosmosdb-server` with its atomic batches, `startCosmosStandIn()`), for
 * "before", the adapter as of aecb4ef (taken from git into `bench/.baseline-cosmos/` at the
 * start, with its defaults: `transactionalBatch` on), and "after", this checkout's
 * `adapters/cosmos` (its defaults: recovery every 10 s), in the same run. Two shapes: a
 * text-only S2 to a form without webhooks, and to a form with one webhook (a loopback URL;
 * the worker is off, so nothing is delivered). Rounds alternate the variants' order; each
 * round of each variant and shape has a new database, so the stand-in's item map holds one
 * round's items: its atomic batch (examples/azure/atomic-batches.ts) copies that map whole
 * for every transactional batch, a cost Cosmos DB does not have, which grows with the items
 * and falls on "after" alone (the old store wrote S2 op by op); each round prints how many
 * items the container held at its end. A first pass of each variant is
 * not reported (compiling the hot paths). Beside each: the Cosmos DB requests per S2
 * counted at the stand-in (`http.server.request.start` on its port), under the load (a
 * commit that fails on the form's counter and is retried counts its requests too) and for
 * {@link ALONE} S2s one after another, with their kinds.
 * Goal: after ≥ before in req/s; the baseline is "before", measured in the same run.
 * Run: `node --conditions=formwork-source --import tsx bench/cosmos-s2.bench.ts`.
 */
import { execFileSync } from "node:child_process";
import { subscribe } from "node:diagnostics_channel";
import { mkdirSync, rmSync } from "node:fs";
import type { IncomingMessage } from "node:http";
import type { Socket } from "node:net";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath, pathToFileURL } from "node:url";
import { CosmosClient } from "@azure/cosmos";
import { createCosmosStore } from "../adapters/cosmos/index.ts";
import { startCosmosStandIn } from "../examples/azure/emulators.ts";
import { createFormService, type FormService } from "../src/index.ts";
import type { Store } from "../src/ports/index.ts";
import { kindOf } from "../test/emulators/cosmos.ts";
import { adminSecret, formBody, postJson } from "./seeded-form.ts";

const BEFORE_COMMIT = "aecb4ef";
const ROUNDS = 3;
const CONCURRENCY = 16;
const WARM_UP_SECONDS = 1;
const SECONDS = 4;
/** S2s posted one after another after each round, to count an uncontended S2's requests. */
const ALONE = 20;
/** No request at the stand-in for this long: background writes (an intent's removal) are done. */
const QUIET_MS = 50;
const HOOK_URL = "http://127.0.0.1:9/formwork-bench-hook";
const submission = JSON.stringify({
  form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }],
});

type Variant = "before" | "after";
type Shape = "text-only" | "text-only, 1 webhook";
const SHAPES: Shape[] = ["text-only", "text-only, 1 webhook"];
type StoreFactory = (options: {
  endpoint: string;
  key: string;
  databaseId: string;
  endpointDiscovery: boolean;
  createIfMissing: boolean;
}) => Store;

const root = fileURLToPath(new URL("..", import.meta.url));
const baselineDirectory = join(root, "bench", ".baseline-cosmos");

/** The adapter as of {@link BEFORE_COMMIT}, from git, or why it cannot be had. */
async function loadBaseline(): Promise<StoreFactory | string> {
  try {
    rmSync(baselineDirectory, { recursive: true, force: true });
    mkdirSync(baselineDirectory, { recursive: true });
    const archive = execFileSync("git", ["-C", root, "archive", BEFORE_COMMIT, "adapters/cosmos"], {
      maxBuffer: 64 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
    execFileSync("tar", ["-x", "-C", baselineDirectory], { input: archive });
    // Inside the package, so its `formwork/ports` resolves to this checkout's src/ports.
    const entry = pathToFileURL(join(baselineDirectory, "adapters/cosmos/index.ts")).href;
    const module = (await import(entry)) as { createCosmosStore: StoreFactory };
    return module.createCosmosStore;
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString().trim();
    return stderr || (error as Error).message;
  }
}

const standIn = await startCosmosStandIn();
const standInPort = Number(new URL(standIn.endpoint).port);
/** Requests the stand-in received, by kind, since the last reset; and when the last came. */
const seen = { kinds: new Map<string, number>(), total: 0, lastAt: 0 };
subscribe("http.server.request.start", (message) => {
  const { request, socket } = message as { request: IncomingMessage; socket: Socket };
  if (socket.localPort !== standInPort) return;
  seen.total++;
  seen.lastAt = performance.now();
  const kind = kindOf(request);
  seen.kinds.set(kind, (seen.kinds.get(kind) ?? 0) + 1);
});
function resetCount() {
  seen.kinds.clear();
  seen.total = 0;
}
async function quiet() {
  while (performance.now() - seen.lastAt < QUIET_MS) {
    await new Promise((resolve) => setTimeout(resolve, QUIET_MS / 5));
  }
}

/** A service on a new database of the stand-in, with the bench form; @returns S2 of it. */
async function setUp(factory: StoreFactory, databaseId: string, shape: Shape) {
  const store = factory({
    endpoint: standIn.endpoint,
    key: standIn.key,
    databaseId,
    endpointDiscovery: false,
    createIfMissing: true,
  });
  const service = createFormService({
    store,
    adminSecret,
    sweepIntervalMs: 0,
    webhookPollMs: 0,
    allowPrivateWebhookDestinations: true,
    // One in-process client is one client address: measure the store, not the limiter.
    rateLimits: { publicPerMinute: 0 },
  });
  const admin = { AdminSecret: adminSecret };
  const account = await postJson(service, "/api/admin/accounts", { email: "b@example.com" }, admin);
  const as = { TokenId: String(account.token_id), TokenSecret: String(account.token_secret) };
  const formId = String((await postJson(service, "/api/restricted/form", formBody, as)).id);
  if (shape !== "text-only") {
    const hook = { webhook_name: "bench", webhook_url: HOOK_URL, webhook_shared_secret: "s3cr3t" };
    await postJson(service, `/api/restricted/form/${formId}/submissionwebhook`, hook, as);
  }
  return { service, post: () => s2(service, formId) };
}

/** One S2; @returns its latency in ms. @throws unless it answered 2xx. */
async function s2(service: FormService, formId: string): Promise<number> {
  const started = performance.now();
  const response = await service.fetch(
    new Request(`http://bench/api/form/${formId}/submission`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: submission,
    }),
  );
  const answer = await response.text();
  if (!response.ok) throw new Error(`S2: ${response.status} ${answer}`);
  return performance.now() - started;
}

/** {@link CONCURRENCY} lanes posting until `seconds` have passed; @returns the latencies. */
async function load(post: () => Promise<number>, seconds: number) {
  const latencies: number[] = [];
  const until = performance.now() + seconds * 1000;
  const lane = async () => {
    while (performance.now() < until) latencies.push(await post());
  };
  const started = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, lane));
  return { latencies, elapsedMs: performance.now() - started };
}

interface Round {
  rps: number;
  p50: number;
  perS2Load: number;
  perS2Alone: number;
  aloneKinds: string;
  loadKinds: string;
  cpu: number;
  /** Items in the container at the end: the stand-in's atomic batch copies them all. */
  items: number;
}

/** The kinds of requests counted since the last reset, per S2 of `s2s`. */
function kindsPer(s2s: number): string {
  return [...seen.kinds]
    .sort(([, a], [, b]) => b - a)
    .map(([kind, count]) => `${+(count / s2s).toFixed(2)} ${kind}`)
    .join(", ");
}

async function measure(
  factory: StoreFactory,
  databaseId: string,
  shape: Shape,
  seconds = SECONDS,
): Promise<Round> {
  const { service, post } = await setUp(factory, databaseId, shape);
  let measured: Omit<Round, "items">;
  try {
    await load(post, WARM_UP_SECONDS);
    await quiet();
    resetCount();
    const cpu = process.cpuUsage();
    const { latencies, elapsedMs } = await load(post, seconds);
    const cpuUsed = process.cpuUsage(cpu);
    await quiet();
    const perS2Load = seen.total / latencies.length;
    const loadKinds = kindsPer(latencies.length);
    resetCount();
    for (let n = 0; n < ALONE; n++) await post();
    await quiet();
    measured = {
      rps: (latencies.length / elapsedMs) * 1000,
      p50: median(latencies),
      perS2Load,
      perS2Alone: seen.total / ALONE,
      aloneKinds: kindsPer(ALONE),
      loadKinds,
      cpu: (cpuUsed.user + cpuUsed.system) / 1000 / elapsedMs,
    };
  } finally {
    await service.close();
  }
  return { ...measured, items: await dropDatabase(databaseId) };
}

/** Deletes a database of the stand-in; @returns how many items its container held. */
async function dropDatabase(databaseId: string): Promise<number> {
  const client = new CosmosClient({
    endpoint: standIn.endpoint,
    key: standIn.key,
    connectionPolicy: { enableEndpointDiscovery: false },
  });
  try {
    const database = client.database(databaseId);
    const { resources } = await database
      .container("formwork")
      .items.query<{ id: string }>("SELECT c.id FROM c")
      .fetchAll();
    await database.delete();
    return resources.length;
  } finally {
    client.dispose();
  }
}

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[values.length >> 1] ?? Number.NaN;

try {
  const baseline = await loadBaseline();
  const factories = new Map<Variant, StoreFactory>([["after", createCosmosStore]]);
  if (typeof baseline === "string") {
    console.log(`baseline unavailable (the adapter as of ${BEFORE_COMMIT}): ${baseline}`);
  } else {
    factories.set("before", baseline);
  }
  console.log(
    `S2 on the Cosmos DB stand-in, in process: ${CONCURRENCY} in flight, ${WARM_UP_SECONDS} s ` +
      `warm-up, ${SECONDS} s measured, ${ROUNDS} rounds; "before" = adapters/cosmos as of ` +
      `${BEFORE_COMMIT}, "after" = this checkout's`,
  );
  const order: Variant[] = ["before", "after"];
  // A pass that is not reported, so that round 1 does not pay for compiling the hot paths.
  for (const variant of order) {
    const factory = factories.get(variant);
    if (factory) await measure(factory, `bench-${variant}-warm-up`, "text-only", 1);
  }
  const results = new Map<string, Round[]>();
  for (let round = 1; round <= ROUNDS; round++) {
    // Alternate which variant goes first, so that neither always runs on a warmer process.
    const variants = (round % 2 ? order : [...order].reverse()).filter((v) => factories.has(v));
    for (const shape of SHAPES) {
      for (const variant of variants) {
        const databaseId = `bench-${variant}-${SHAPES.indexOf(shape)}-${round}`;
        const result = await measure(factories.get(variant) as StoreFactory, databaseId, shape);
        const key = `${variant}|${shape}`;
        results.set(key, [...(results.get(key) ?? []), result]);
        console.log(
          `round ${round}  ${variant.padEnd(6)} ${shape.padEnd(20)}  ${Math.round(result.rps)} req/s  ` +
            `p50 ${result.p50.toFixed(2)} ms  Cosmos requests per S2: ${result.perS2Load.toFixed(2)} ` +
            `under load, ${result.perS2Alone.toFixed(2)} alone  (this process's CPU: ` +
            `${Math.round(result.cpu * 100)} % of one core; ${result.items} items at the end)`,
        );
      }
    }
  }
  const rows = [];
  for (const shape of SHAPES) {
    for (const variant of order) {
      const runs = results.get(`${variant}|${shape}`);
      if (!runs) continue;
      rows.push({
        variant,
        shape,
        "req/s (median)": Math.round(median(runs.map((r) => r.rps))),
        "p50 ms (median)": median(runs.map((r) => r.p50)).toFixed(2),
        "Cosmos req/S2 alone": median(runs.map((r) => r.perS2Alone)).toFixed(2),
        "Cosmos req/S2 under load": median(runs.map((r) => r.perS2Load)).toFixed(2),
        "alone, by kind (last round)": runs.at(-1)?.aloneKinds ?? "",
        "under load, by kind (last round)": runs.at(-1)?.loadKinds ?? "",
      });
    }
  }
  console.table(rows);
  for (const shape of SHAPES) {
    const before = results.get(`before|${shape}`);
    const after = results.get(`after|${shape}`) as Round[];
    if (!before) {
      console.log(`${shape}: no baseline, goal (after ≥ before in req/s) not checked`);
      continue;
    }
    const ratio = median(after.map((r) => r.rps)) / median(before.map((r) => r.rps));
    const latency = median(after.map((r) => r.p50)) / median(before.map((r) => r.p50));
    console.log(
      `${shape}: req/s after/before ${ratio.toFixed(3)} (goal: after ≥ before, i.e. ≥ 1.000; ` +
        `baseline: "before", this run: ${ratio >= 1 ? "met" : "NOT met"}); ` +
        `p50 after/before ${latency.toFixed(3)}`,
    );
  }
} finally {
  rmSync(baselineDirectory, { recursive: true, force: true });
  await standIn.stop();
}
