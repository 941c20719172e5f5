/**
 * The Cosmos DB store's batches under kill -9: a real writer process is killed between two
 * requests of one batch (the stand-in, in this process, cuts the request it was sending),
 * and then another store's background recovery must leave all of the batch or none of it.
 * The shapes are S2's: a form's counter and submission (one partition key), a webhook
 * delivery and its outbox entry elsewhere, and a partner customer's quota counter; and S7's,
 * which the retention sweep writes too: deletions with their counts given back.
 */
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { randomUUID } from "node:crypto";
import { join } from "node:path";
import { describe, it } from "node:test";
import { createCosmosStore } from "../../adapters/cosmos/index.ts";
import type { BatchOp, Store, StoreRecord } from "../../src/ports/store.ts";
import { startCosmosEmulator } from "../emulators/cosmos.ts";

const emulator = await startCosmosEmulator();
const client = emulator.client();
const databaseId = "crashes";

interface Counter extends StoreRecord {
  counts: Record<string, number>;
}

/**
 * A store of the test's own on a container, recovering every 50 ms with no grace, or not at
 * all with `recovering: false`.
 */
function open(containerId: string, recovering = true): Store {
  return createCosmosStore({
    client,
    databaseId,
    containerId,
    createIfMissing: true,
    recoveryIntervalMs: recovering ? 50 : 0,
    intentGraceMs: 0,
  });
}

/**
 * Runs `ops` in a writer process and kills it (SIGKILL) when it sends its `killAt`-th batch
 * request, which is never served. Resolves once the process is gone.
 */
async function killedWriting(containerId: string, ops: BatchOp[], killAt: number) {
  const root = join(import.meta.dirname, "../..");
  const { NODE_V8_COVERAGE: _, NODE_TEST_CONTEXT: __, ...env } = process.env;
  const child: ChildProcess = spawn(
    process.execPath,
    [
      "--conditions=formwork-source",
      "--import",
      "tsx",
      join(root, "test/adapters/cosmos-batch-writer.ts"),
      JSON.stringify(ops),
    ],
    {
      cwd: root,
      env: {
        ...env,
        COSMOS_ENDPOINT: emulator.endpoint,
        COSMOS_KEY: emulator.key,
        COSMOS_DATABASE: databaseId,
        COSMOS_CONTAINER: containerId,
      },
      stdio: ["ignore", "pipe", "pipe"],
    },
  );
  let output = "";
  child.stdout?.on("data", (chunk) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk) => {
    output += chunk;
  });
  const gone = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const kill = async () => {
    child.kill("SIGKILL");
    await gone;
    return "drop";
  };
  const armed = (n: number) => () => {
    if (n === killAt) return kill();
    emulator.before("batch", armed(n + 1));
    return Promise.resolve();
  };
  emulator.before("batch", armed(1));
  await gone;
  assert.doesNotMatch(output, /written/, "the writer finished before it was killed");
  assert.equal(child.signalCode, "SIGKILL", output);
}

/** Polls `check` until it holds (recovery runs every 50 ms), for at most 10 s. */
async function eventually(check: () => Promise<boolean>, what: string) {
  const until = Date.now() + 10_000;
  while (!(await check())) {
    assert.ok(Date.now() < until, `not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A form with its counter at 4, and S2's ops for one more submission with one webhook. */
async function formWithWebhook(store: Store) {
  const form = randomUUID();
  const counter = await store.create<Counter>("form_counters", form, {
    id: form,
    counts: { submissions: 4 },
  });
  const submission = { id: randomUUID(), form_id: form };
  const delivery = { id: randomUUID(), submission_id: submission.id };
  const raised: Counter = { id: form, counts: { submissions: 5 } };
  const ops: BatchOp[] = [
    {
      op: "replace",
      collection: "form_counters",
      partition: form,
      record: raised,
      ifMatch: counter.etag,
      previous: counter.record,
    },
    { op: "create", collection: "submissions", partition: form, record: submission },
    { op: "create", collection: "webhook_deliveries", partition: "hook", record: delivery },
    { op: "create", collection: "webhook_outbox", partition: "due-3", record: delivery },
  ];
  return { form, submission, delivery, ops };
}

describe("cosmos store: a batch cut by kill -9", () => {
  it("is finished by recovery when the writer dies after its commit", async () => {
    const containerId = `c-${randomUUID()}`;
    const store = open(containerId);
    const { form, submission, delivery, ops } = await formWithWebhook(store);
    // Batch 1: the counter, the submission and the intent; batch 2: the delivery (cut).
    await killedWriting(containerId, ops, 2);
    assert.ok(await store.get("submissions", form, submission.id), "the commit landed");
    await eventually(
      async () =>
        (await store.get("webhook_deliveries", "hook", delivery.id)) !== null &&
        (await store.get("webhook_outbox", "due-3", delivery.id)) !== null,
      "the delivery and its outbox entry written by recovery",
    );
    const counter = await store.get<Counter>("form_counters", form, form);
    assert.equal(counter?.record.counts.submissions, 5);
    await eventually(async () => (await intents(containerId)) === 0, "the intent removed");
    await store.close();
  });

  it("leaves nothing when the writer dies before its commit", async () => {
    const containerId = `c-${randomUUID()}`;
    const store = open(containerId);
    const { form, submission, ops } = await formWithWebhook(store);
    await killedWriting(containerId, ops, 1);
    assert.equal(await store.get("submissions", form, submission.id), null);
    const counter = await store.get<Counter>("form_counters", form, form);
    assert.equal(counter?.record.counts.submissions, 4);
    assert.equal(await intents(containerId), 0);
    await store.close();
  });

  describe("with a quota counter in a second partition key (two phases)", () => {
    /** S2's batch on a partner customer's form: the form's ops, then the customer's quota. */
    async function partnerPost(store: Store) {
      const post = await formWithWebhook(store);
      const customer = randomUUID();
      const quota = await store.create<Counter>("customer_counters", customer, {
        id: "monthly",
        counts: { used: 10 },
      });
      const used: Counter = { id: "monthly", counts: { used: 11 } };
      const quotaOp: BatchOp = {
        op: "replace",
        collection: "customer_counters",
        partition: customer,
        record: used,
        ifMatch: quota.etag,
        previous: quota.record,
      };
      const [counterOp, ...rest] = post.ops;
      return { ...post, customer, ops: [counterOp as BatchOp, quotaOp, ...rest] };
    }

    const quotaOf = async (store: Store, customer: string) =>
      (await store.get<Counter>("customer_counters", customer, "monthly"))?.record.counts.used;

    it("takes back the form's writes, keeping a later post's, when the writer dies before its commit", async () => {
      const containerId = `c-${randomUUID()}`;
      const idle = open(containerId, false);
      const { form, submission, customer, ops } = await partnerPost(idle);
      // Batch 1: the form's ops with the prepared intent; batch 2: the quota's commit (cut).
      await killedWriting(containerId, ops, 2);
      const prepared = (await idle.get<Counter>("form_counters", form, form)) as {
        record: Counter;
        etag: string;
      };
      assert.equal(prepared.record.counts.submissions, 5, "the form's ops were prepared");
      // Another post counts on top of the prepared one before recovery runs.
      const next: Counter = { id: form, counts: { submissions: 6 } };
      await idle.replace("form_counters", form, next, { ifMatch: prepared.etag });
      await idle.close();
      const store = open(containerId);
      await eventually(
        async () => (await store.get("submissions", form, submission.id)) === null,
        "the prepared submission taken back",
      );
      const counter = await store.get<Counter>("form_counters", form, form);
      assert.equal(counter?.record.counts.submissions, 5, "the later post's count kept");
      assert.equal(await quotaOf(store, customer), 10);
      await eventually(async () => (await intents(containerId)) === 0, "the intent removed");
      // The abort marker stays, so that the writer's commit, were it still on its way,
      // could never land (its batch creates the same marker).
      assert.equal(await count(containerId, "aborted"), 1);
      await store.close();
    });

    it("finishes the post when the writer dies after its commit", async () => {
      const containerId = `c-${randomUUID()}`;
      // No recovery while the writer lives: with no grace, a run between its prepare and its
      // commit would rightly abort a write that looks abandoned, and the post never land.
      const idle = open(containerId, false);
      const { form, submission, delivery, customer, ops } = await partnerPost(idle);
      // Batch 1: the form's ops, prepared; 2: the quota's commit; 3: the delivery (cut).
      await killedWriting(containerId, ops, 3);
      await idle.close();
      const store = open(containerId);
      await eventually(
        async () => (await store.get("webhook_outbox", "due-3", delivery.id)) !== null,
        "the outbox entry written by recovery",
      );
      assert.ok(await store.get("submissions", form, submission.id));
      assert.equal(await quotaOf(store, customer), 11);
      await eventually(async () => (await intents(containerId)) === 0, "the intent removed");
      await store.close();
    });
  });
});

describe("cosmos store: a deletion's batch cut by kill -9 (S7, the retention sweep)", () => {
  /**
   * S7's batch on a partner customer's form (docs/design.md §15): the submission and its
   * attachment deleted and the form's count lowered, the customer's storage given back in a
   * second partition key, and a `form_submission.deleted` delivery queued elsewhere.
   */
  async function partnerDeletion(store: Store) {
    const form = randomUUID();
    const customer = randomUUID();
    const counter = await store.create<Counter>("form_counters", form, {
      id: form,
      counts: { submissions: 5 },
    });
    const submission = await store.create("submissions", form, { id: randomUUID() });
    const attachment = await store.create("attachments", form, { id: randomUUID(), size: 300 });
    const storage = await store.create<Counter>("customer_counters", customer, {
      id: "total_file_storage",
      counts: { used: 1000 },
    });
    const delivery = { id: randomUUID(), submission_id: submission.record.id };
    const lowered: Counter = { id: form, counts: { submissions: 4 } };
    const givenBack: Counter = { id: "total_file_storage", counts: { used: 700 } };
    const ops: BatchOp[] = [
      {
        op: "delete",
        collection: "submissions",
        partition: form,
        id: submission.record.id,
        ifMatch: submission.etag,
        previous: submission.record,
      },
      {
        op: "replace",
        collection: "form_counters",
        partition: form,
        record: lowered,
        ifMatch: counter.etag,
        previous: counter.record,
      },
      {
        op: "delete",
        collection: "attachments",
        partition: form,
        id: attachment.record.id,
        ifMatch: attachment.etag,
        previous: attachment.record,
      },
      {
        op: "replace",
        collection: "customer_counters",
        partition: customer,
        record: givenBack,
        ifMatch: storage.etag,
        previous: storage.record,
      },
      { op: "create", collection: "webhook_deliveries", partition: "hook", record: delivery },
      { op: "create", collection: "webhook_outbox", partition: "due-5", record: delivery },
    ];
    const state = async (reader: Store) => ({
      submission: (await reader.get("submissions", form, submission.record.id)) !== null,
      attachment: (await reader.get("attachments", form, attachment.record.id)) !== null,
      submissions: (await reader.get<Counter>("form_counters", form, form))?.record.counts
        .submissions,
      used: (await reader.get<Counter>("customer_counters", customer, "total_file_storage"))?.record
        .counts.used,
      delivered: (await reader.get("webhook_outbox", "due-5", delivery.id)) !== null,
    });
    return { ops, state };
  }

  it("keeps the submission, its file and every count when the writer dies before its commit", async () => {
    const containerId = `c-${randomUUID()}`;
    const idle = open(containerId, false);
    const { ops, state } = await partnerDeletion(idle);
    await idle.close();
    // Batch 1: the form's ops, prepared; batch 2: the storage's commit (cut).
    await killedWriting(containerId, ops, 2);
    const store = open(containerId);
    const kept = {
      submission: true,
      attachment: true,
      submissions: 5,
      used: 1000,
      delivered: false,
    };
    await eventually(
      async () => JSON.stringify(await state(store)) === JSON.stringify(kept),
      "the prepared deletion taken back",
    );
    await eventually(async () => (await intents(containerId)) === 0, "the intent removed");
    await store.close();
  });

  it("finishes the deletion when the writer dies after its commit", async () => {
    const containerId = `c-${randomUUID()}`;
    const idle = open(containerId, false);
    const { ops, state } = await partnerDeletion(idle);
    await idle.close();
    // Batch 1: the form's ops, prepared; 2: the storage's commit; 3: the delivery (cut).
    await killedWriting(containerId, ops, 3);
    const store = open(containerId);
    const done = {
      submission: false,
      attachment: false,
      submissions: 4,
      used: 700,
      delivered: true,
    };
    await eventually(
      async () => JSON.stringify(await state(store)) === JSON.stringify(done),
      "the deletion finished by recovery",
    );
    await eventually(async () => (await intents(containerId)) === 0, "the intent removed");
    await store.close();
  });
});

/** How many intents the container holds (read past the store, as an operator would). */
async function intents(containerId: string): Promise<number> {
  const container = client.database(databaseId).container(containerId);
  const { resources } = await container.items
    .query({ query: `SELECT VALUE COUNT(1) FROM c WHERE c.coll = "~intent"` })
    .fetchAll();
  return Number(resources[0] ?? 0);
}

/** How many markers in `state` the container holds. */
async function count(containerId: string, state: string): Promise<number> {
  const container = client.database(databaseId).container(containerId);
  const { resources } = await container.items
    .query({
      query: `SELECT VALUE COUNT(1) FROM c WHERE c.coll = "~marker" AND c.state = @state`,
      parameters: [{ name: "@state", value: state }],
    })
    .fetchAll();
  return Number(resources[0] ?? 0);
}
