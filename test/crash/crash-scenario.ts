/**
 * One exact crash scenario, whatever the backend: receivers, a cluster of server processes,
 * the forms set up through the HTTP API, rounds of load with a kill -9 each, then the
 * backend's recovery wait and the checks of crash-records.ts, with a one-line summary.
 *
 * For a run by hand: `CRASH_VERBOSE=1` prints each round on stderr as it goes; `CRASH_ROUNDS`
 * and `CRASH_RECOVERY_MS` change the rounds (5) and the longest recovery wait (60000 ms).
 */
import assert from "node:assert/strict";
import { after, type TestContext } from "node:test";
import { Cluster, type Instances } from "./crash-cluster.ts";
import { type Answers, type FormLoad, runLoad } from "./crash-load.ts";
import {
  type Measures,
  measure,
  promisesHold,
  type Snapshot,
  summaryLine,
} from "./crash-records.ts";
import { type LoadedForm, type Receivers, setUpForms, startReceivers } from "./crash-world.ts";

/** The rounds and the longest recovery wait, from the environment or their defaults. */
export const crashSettings = {
  rounds: Number(process.env.CRASH_ROUNDS ?? 5),
  recoveryMs: Number(process.env.CRASH_RECOVERY_MS ?? 60_000),
};

/** What a backend's recovery wait gets. */
export interface Recovery {
  cluster: Cluster;
  forms: LoadedForm[];
  customerId: string;
  receivers: Receivers;
  /** Measures a snapshot against what the clients were told. */
  measure(snapshot: Snapshot): Measures;
}

/** A scenario: its instances, its rounds and how it waits for recovery. */
export interface Scenario {
  name: string;
  /** The server processes, given where the receivers listen. */
  instances(receivers: Receivers): Promise<Instances>;
  rounds: number;
  /** Milliseconds of load before each kill, and after the last round. */
  loadMs: number;
  clients: number;
  /**
   * Waits, bounded, until the promises hold or time is up; stops every instance.
   * @returns the records as stored at the end
   */
  recover(recovery: Recovery): Promise<Snapshot>;
}

/** The zero every asserted measure must be, shaped as `measures` is. */
function zeroOf(measures: Measures) {
  const { mailsMissing: _, destinationsMissing: __, ...asserted } = measures;
  const zero = Object.fromEntries(
    Object.entries(asserted).map(([name, value]) => [
      name,
      Array.isArray(value) ? value.map(() => 0) : 0,
    ]),
  );
  return { asserted, zero };
}

/** Runs `scenario` and asserts that every crash promise held. */
export async function runScenario(t: TestContext, scenario: Scenario): Promise<void> {
  const started = Date.now();
  const receivers = await startReceivers();
  after(() => receivers.inbox.close());
  const cluster = new Cluster(await scenario.instances(receivers));
  // Whatever fails, no instance outlives the test.
  after(() => cluster.stop());
  await cluster.start();
  const { forms, customerId } = await setUpForms(cluster.first(), receivers);
  const loads: FormLoad[] = forms.map((form) => ({
    form,
    told: { submitted: new Map(), deleted: new Set(), deleting: new Set() },
    live: [],
  }));
  const toldOf = (form: LoadedForm) => {
    const load = loads.find((one) => one.form === form);
    if (!load) throw new Error(`no load on ${form.formId}`);
    return load.told;
  };
  const loadStart = Date.now();
  const answers = await runLoad(cluster, loads, scenario);
  const loaded = Date.now();
  const snapshot = await scenario.recover({
    cluster,
    forms,
    customerId,
    receivers,
    measure: (one) => measure(one, toldOf, receivers),
  });
  const measures = measure(snapshot, toldOf, receivers);
  const acknowledged = loads.reduce((sum, { told }) => sum + told.submitted.size, 0);
  const deleted = loads.reduce((sum, { told }) => sum + told.deleted.size, 0);
  const line = summaryLine(
    scenario.name,
    {
      crashes: cluster.kills,
      acknowledged,
      "S7s acknowledged": deleted,
      "load s": ((loaded - loadStart) / 1000).toFixed(1),
      "recovery s": ((Date.now() - loaded) / 1000).toFixed(1),
      "total s": ((Date.now() - started) / 1000).toFixed(1),
    },
    measures,
    snapshot,
  );
  t.diagnostic(line);
  t.diagnostic(`${scenario.name} answers: ${describeAnswers(answers)}`);
  for (const line of cluster.logs.slice(0, 5)) t.diagnostic(line.slice(0, 400));
  assert.ok(acknowledged > 0 && deleted > 0, `too little load: ${line}`);
  assert.equal(cluster.kills, scenario.rounds);
  const { asserted, zero } = zeroOf(measures);
  assert.deepEqual(asserted, zero, line);
  assert.equal(promisesHold(measures), true, line);
}

function describeAnswers(answers: Answers): string {
  return [...answers]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([kind, { count, ms }]) => `${kind}: ${count} (${Math.round(ms / count)} ms)`)
    .join(", ");
}

/** Polls `check` every `everyMs` until it answers `true` or `timeoutMs` passed. */
export async function pollUntil(check: () => Promise<boolean>, timeoutMs: number, everyMs = 1000) {
  const end = Date.now() + timeoutMs;
  while (!(await check()) && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}
