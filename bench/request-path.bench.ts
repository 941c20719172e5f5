/**
 * The request path (issue 12): what S2 (posting a submission) costs per request beside a bare itty-router JSON
 * handler served the same way (`submission-server.ts`), each in a fresh child process loaded
 * by autocannon in this run: S2 on the memory store, and on the lowdb store with a form
 * holding 1,000 and one holding 100,000 submissions (seeded straight into the store, with
 * the form's counter to match), to show whether the cost grows with the data. Each round
 * measures the bare handler and every S2 case once; {@link ROUNDS} rounds, and the table
 * shows each round's ratio to that round's bare figure, the median, and the goal of
 * issue 12. Run: `node --conditions=formwork-source --import tsx bench/request-path.bench.ts`.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { v7 } from "uuid";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { createFormService, type Store } from "../src/index.ts";
import { freePort, startServer, stopServer } from "./standalone-process.ts";

const SIZES = [1_000, 100_000];
const CONNECTIONS = 50;
const WARM_UP_SECONDS = 1;
const SECONDS = 8;
const ROUNDS = 3;
/** Issue 12's goals, as a share of the bare handler's requests per second. */
const goals = { memory: 0.6, lowdb: 0.5 };
const adminSecret = "bench-admin-secret";
const submission = { form_fields: [{ unique_system_name: "name_1", submitted_value: "Ada" }] };
const formBody = {
  form_configuration: { settings: { form_name: "Bench", form_type: "classicsingle" } },
  form_definition: {
    pages: [
      {
        fields: [
          { unique_system_name: "name_1", type: "text", label: "Name" },
          { unique_system_name: "cv_2", type: "file", label: "CV", max_file_size: 209715200 },
        ],
      },
    ],
  },
};

/** A form holding `count` submissions in a new data folder. */
async function seed(count: number): Promise<{ directory: string; formId: string }> {
  const directory = await mkdtemp(join(tmpdir(), "formwork-rps-bench-"));
  const store = createLowdbStore({ directory });
  const service = createFormService({ store, adminSecret, sweepIntervalMs: 0 });
  try {
    const call = async (path: string, headers: Record<string, string>, body: unknown) => {
      const response = await service.fetch(
        new Request(`http://bench${path}`, {
          method: "POST",
          headers: { ...headers, "content-type": "application/json" },
          body: JSON.stringify(body),
        }),
      );
      const answer = (await response.json()) as Record<string, unknown>;
      if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
      return answer;
    };
    const account = await call(
      "/api/admin/accounts",
      { AdminSecret: adminSecret },
      { email: "bench@example.com" },
    );
    const tokens = { TokenId: String(account.token_id), TokenSecret: String(account.token_secret) };
    const formId = String((await call("/api/restricted/form", tokens, formBody)).id);
    await addSubmissions(store, formId, count);
    return { directory, formId };
  } finally {
    await service.close();
  }
}

/** Writes `count` submissions of the form (concurrent creates, batches of 500). */
async function addSubmissions(store: Store, formId: string, count: number): Promise<void> {
  const start = Date.now() - count;
  for (let done = 0; done < count; done += 500) {
    const batch = Array.from({ length: Math.min(500, count - done) }, (_, i) => done + i);
    await Promise.all(
      batch.map((n) =>
        store.create("submissions", formId, {
          id: v7({ msecs: start + n }),
          form_id: formId,
          stale_form_name: "Bench",
          created_by_verified_email_address: "",
          created_by_device: { client_ip_address: "", client_ip_country_code: "" },
          form_fields: [{ unique_system_name: "name_1", submitted_value: `Person ${n}` }],
          search_words: ["person", String(n)],
          is_draft_submission: false,
          created_date_utc: new Date(start + n).toISOString(),
          modified_date_utc: "0001-01-01T00:00:00",
        }),
      ),
    );
  }
  const counter = { id: formId, counts: { submissions: count } };
  const stored = await store.get("form_counters", formId, formId);
  if (stored) await store.replace("form_counters", formId, counter);
  else await store.create("form_counters", formId, counter);
}

/** How many submissions the form's counter says it holds. */
async function heldBy(directory: string, formId: string): Promise<number> {
  const store = createLowdbStore({ directory });
  try {
    const stored = await store.get<{ id: string; counts: { submissions: number } }>(
      "form_counters",
      formId,
      formId,
    );
    return stored?.record.counts.submissions ?? 0;
  } finally {
    await store.close();
  }
}

/** Signs up an account and creates the bench form through a running server. */
async function formOn(base: string): Promise<string> {
  const call = async (path: string, headers: Record<string, string>, body: unknown) => {
    const response = await fetch(`${base}${path}`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as Record<string, unknown>;
    if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
    return answer;
  };
  const account = await call(
    "/api/admin/accounts",
    { AdminSecret: adminSecret },
    { email: "bench@example.com" },
  );
  const tokens = { TokenId: String(account.token_id), TokenSecret: String(account.token_secret) };
  return String((await call("/api/restricted/form", tokens, formBody)).id);
}

/**
 * Starts a server process, warms it up, loads it for {@link SECONDS} and stops it. Without
 * `formId`, the form is created through the server first (the memory store starts empty).
 */
async function measure(env: Record<string, string>, formId?: string) {
  const server = await startServer(
    { ...env, PORT: String(await freePort()), ADMIN_SECRET: adminSecret },
    "bench/submission-server.ts",
  );
  try {
    const options = {
      url: `${server.base}/api/form/${formId ?? (await formOn(server.base))}/submission`,
      method: "POST" as const,
      headers: { "content-type": "application/json" },
      body: JSON.stringify(submission),
      connections: CONNECTIONS,
    };
    await autocannon({ ...options, duration: WARM_UP_SECONDS });
    return await autocannon({ ...options, duration: SECONDS });
  } finally {
    await stopServer(server);
  }
}

const perSecond = (result: autocannon.Result) => result.requests.average;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] ?? 0;

/** One scenario's results over the rounds, beside the bare handler's of the same rounds. */
interface Scenario {
  name: string;
  goal: number | null;
  results: autocannon.Result[];
}

function row({ name, goal, results }: Scenario, bare: autocannon.Result[]) {
  const ratios = results.map(
    (result, i) => perSecond(result) / perSecond(bare[i] as autocannon.Result),
  );
  const ratio = median(ratios);
  return {
    scenario: name,
    "requests/s (median)": Math.round(median(results.map(perSecond))),
    "p99 ms (median)": median(results.map((r) => r.latency.p99)),
    "non-2xx": results.reduce((sum, r) => sum + r.non2xx + r.errors, 0),
    "× bare, each round": ratios.map((r) => r.toFixed(3)).join(" "),
    "× bare, median": ratio.toFixed(3),
    goal: goal === null ? "-" : `≥ ${goal}`,
    met: goal === null ? "-" : ratio >= goal ? "yes" : "NO",
  };
}

const seeded: { size: number; directory: string; formId: string }[] = [];
try {
  // All seeding first, so that no measurement shares the machine with it.
  for (const size of SIZES) {
    const started = performance.now();
    seeded.push({ size, ...(await seed(size)) });
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    console.log(`seeded ${size} submissions in ${seconds} s`);
  }
  const bare: Scenario = { name: "bare itty-router JSON handler", goal: null, results: [] };
  const memory: Scenario = { name: "S2, memory store", goal: goals.memory, results: [] };
  const lowdb = seeded.map(({ size }) => ({
    name: `S2, lowdb, ${size} submissions`,
    goal: goals.lowdb,
    results: [] as autocannon.Result[],
  }));
  for (let round = 1; round <= ROUNDS; round++) {
    bare.results.push(await measure({ BENCH_HANDLER: "bare" }, v7()));
    memory.results.push(await measure({ BENCH_HANDLER: "memory" }));
    for (const [i, { directory, formId }] of seeded.entries()) {
      const result = await measure({ BENCH_HANDLER: "formwork", DATA_DIR: directory }, formId);
      lowdb[i]?.results.push(result);
    }
    console.log(`round ${round} of ${ROUNDS} done`);
  }
  const held = await Promise.all(
    seeded.map(
      async ({ size, directory, formId }) => `${size} → ${await heldBy(directory, formId)}`,
    ),
  );
  console.log(
    `${CONNECTIONS} connections, ${WARM_UP_SECONDS} s warm-up, ${SECONDS} s measured, ${ROUNDS} rounds; each server in a child process; submissions held after: ${held.join(", ")}`,
  );
  console.table([bare, memory, ...lowdb].map((scenario) => row(scenario, bare.results)));
} finally {
  for (const { directory } of seeded) await rm(directory, { recursive: true, force: true });
}
