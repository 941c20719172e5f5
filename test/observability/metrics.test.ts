/**
 * Metrics (docs/design.md §10): after a walk-through (a form made, S2 with an upload, a
 * webhook delivered to a real receiver, a rate-limited request and a refused one) a scrape of
 * `service.metrics()` holds every family with its label sets, label values bounded (route
 * patterns, never a path or an id), and parses as the Prometheus text format. Without
 * `metrics` the service measures nothing and `metrics()` rejects.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { Registry } from "prom-client";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createMemoryBlobStore, createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService, createHttpWebhookSender } from "../../src/index.ts";
import type { Store } from "../../src/ports/store.ts";
import { heldStore } from "../held-store.ts";
import { formInput, request, type TestUser, uploadBytes } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";
import { eventually, startReceiver } from "../webhooks/receiver.ts";
import { parseExposition, type Sample } from "./exposition.ts";

/** The label sets of `family`'s samples named `name` (the family's own name by default). */
function labelSets(samples: Sample[], name: string): Record<string, string>[] {
  return samples.filter((sample) => sample.name === name).map((sample) => sample.labels);
}

/** Whether `sets` holds one that has every label of `wanted`. */
function has(sets: Record<string, string>[], wanted: Record<string, string>): boolean {
  return sets.some((set) => Object.entries(wanted).every(([key, value]) => set[key] === value));
}

/** A service keeping metrics over `store`, a form with a text and a file field, and a hook. */
async function walkThrough(store: Store) {
  const service = createFormService({
    store,
    blobs: createMemoryBlobStore(),
    metrics: true,
    allowPrivateWebhookDestinations: true,
    webhookSender: createHttpWebhookSender({ allowPrivateDestinations: true, retryBaseMs: 20 }),
    webhookPollMs: 50,
    sweepIntervalMs: 0,
    rateLimits: { publicPerMinute: 2 },
  });
  after(() => service.close());
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const call = (method: string, path: string, send: Parameters<typeof request>[3] = {}) =>
    request(service, method, path, send);
  const fields = [
    { unique_system_name: "name_1", type: "text", label: "Name" },
    { unique_system_name: "cv_2", type: "file", label: "CV" },
  ];
  const made = await call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Metrics", fields),
  });
  assert.equal(made.status, 200);
  const formId: string = made.body.id;
  const receiver = await startReceiver([200]);
  const hook = await call("POST", `/api/restricted/form/${formId}/submissionwebhook`, {
    as: alice,
    body: { webhook_name: "measured", webhook_url: receiver.url },
  });
  assert.equal(hook.status, 200);

  const upload = await uploadBytes(service, formId, "cv_2", 3000);
  assert.equal(upload.status, 200);
  const posted = await call("POST", `/api/form/${formId}/submission`, {
    body: {
      form_fields: [
        { unique_system_name: "name_1", submitted_value: "Ada Lovelace" },
        { unique_system_name: "cv_2", submitted_value: upload.body.id },
      ],
    },
  });
  assert.equal(posted.status, 200);
  await receiver.waitFor(1);

  // The public limit counts by client address: two F5 reads pass, the third is refused.
  const statuses: number[] = [];
  for (let n = 0; n < 3; n++) {
    const read = new Request(`http://localhost/api/form/${formId}`);
    const response = await service.fetch(read, { clientAddress: "203.0.113.9" });
    await response.body?.cancel();
    statuses.push(response.status);
  }
  assert.deepEqual(statuses, [200, 200, 429]);
  const refused = await call("GET", "/api/restricted/user/form");
  assert.equal(refused.status, 401);
  return { service, formId, alice, posted };
}

describe("metrics", () => {
  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`counts a walk-through in every family, by bounded labels (${name})`, async () => {
      const { service, formId, alice, posted } = await walkThrough(
        serviceQueriesOnly(await open()),
      );
      // The attempt is counted as it ends, and its outbox entry goes once the worker settled it.
      let samples: Sample[] = [];
      await eventually(async () => {
        samples = parseExposition((await service.metrics()).body).samples;
        const settled = samples.some(
          (s) => s.name === "formwork_outbox_entries" && s.labels.state === "all" && s.value === 0,
        );
        return settled && has(labelSets(samples, "formwork_delivery_attempts_total"), {});
      });
      const scrape = await service.metrics();
      assert.equal(scrape.contentType, "text/plain; version=0.0.4; charset=utf-8");
      const { families } = parseExposition(scrape.body);

      const requests = labelSets(samples, "formwork_http_request_duration_seconds_count");
      for (const wanted of [
        { method: "POST", route: "/api/restricted/form", status: "200" },
        { method: "POST", route: "/api/form/:formId/submissionattachment", status: "200" },
        { method: "POST", route: "/api/form/:formId/submission", status: "200" },
        { method: "GET", route: "/api/form/:formId", status: "429" },
        { method: "GET", route: "/api/restricted/user/form", status: "401" },
      ]) {
        assert.ok(has(requests, wanted), `no request sample ${JSON.stringify(wanted)}`);
      }
      assert.equal(families.get("formwork_http_request_duration_seconds"), "histogram");

      const storeCalls = labelSets(samples, "formwork_store_call_duration_seconds_count");
      assert.ok(has(storeCalls, { operation: "get", collection: "forms" }));
      assert.ok(has(storeCalls, { operation: "batch" }));
      assert.ok(has(storeCalls, { operation: "query", collection: "webhook_outbox" }));
      assert.equal(families.get("formwork_store_conflicts_total"), "counter");

      const attempts = labelSets(samples, "formwork_delivery_attempts_total");
      assert.ok(has(attempts, { kind: "webhook", outcome: "delivered" }));

      const refusals = labelSets(samples, "formwork_refused_requests_total");
      assert.ok(has(refusals, { code: "rate_limited" }));
      assert.ok(has(refusals, { code: "unauthorized" }));
      assert.deepEqual(labelSets(samples, "formwork_rate_limited_requests_total"), [
        { limit: "public" },
      ]);

      const uploads = samples.find((s) => s.name === "formwork_upload_size_bytes_sum");
      assert.equal(uploads?.value, 3000);

      // Delivered and claimed: the outbox is empty, nothing is due.
      const outbox = samples.filter((s) => s.name === "formwork_outbox_entries");
      assert.deepEqual(
        outbox.map((s) => [s.labels.state, s.value]),
        [
          ["all", 0],
          ["due", 0],
        ],
      );
      assert.ok(samples.some((s) => s.name === "formwork_outbox_oldest_due_age_seconds"));

      if (name === "lowdb") {
        const journal = samples.find((s) => s.name === "formwork_store_journal_bytes");
        assert.ok(journal && journal.value > 0, "the journal holds the walk-through");
        const compactions = samples.find((s) => s.name === "formwork_store_compactions_total");
        assert.equal(compactions?.value, 0);
      } else {
        assert.ok(!families.has("formwork_store_journal_bytes"));
      }

      // Bounded labels: no id, token or answer appears anywhere in the scrape.
      for (const secret of [formId, posted.body.id, alice.token_id, alice.token_secret, "Ada"]) {
        assert.ok(!scrape.body.includes(secret), `the scrape holds ${secret}`);
      }
      // Before the Cosmos stand-in stops (its `after` runs first): the worker still reads.
      await service.close();
    });
  }

  it("reads the outbox's depth and its oldest due entry's age at the scrape", async () => {
    const clock = { now: new Date("2026-01-01T12:00:00Z") };
    const receiver = await startReceiver([503]);
    const store = serviceQueriesOnly(createMemoryStore());
    const service = createFormService({
      store,
      metrics: true,
      allowPrivateWebhookDestinations: true,
      webhookPollMs: 0,
      sweepIntervalMs: 0,
      now: () => clock.now,
    });
    after(() => service.close());
    const alice = (await service.admin.createAccount({ email: "bob@example.com" })) as TestUser;
    const made = await request(service, "POST", "/api/restricted/form", {
      as: alice,
      body: formInput("Queued", [{ unique_system_name: "name_1", type: "text", label: "Name" }]),
    });
    const formId: string = made.body.id;
    await request(service, "POST", `/api/restricted/form/${formId}/submissionwebhook`, {
      as: alice,
      body: { webhook_name: "never read", webhook_url: receiver.url },
    });
    for (const answer of ["one", "two"]) {
      await request(service, "POST", `/api/form/${formId}/submission`, {
        body: { form_fields: [{ unique_system_name: "name_1", submitted_value: answer }] },
      });
    }
    clock.now = new Date("2026-01-01T12:01:30Z");
    const { samples } = parseExposition((await service.metrics()).body);
    const value = (name: string, state?: string) =>
      samples.find((s) => s.name === name && s.labels.state === state)?.value;
    assert.equal(value("formwork_outbox_entries", "all"), 2);
    assert.equal(value("formwork_outbox_entries", "due"), 2);
    assert.equal(value("formwork_outbox_oldest_due_age_seconds"), 90);
  });

  it("counts lowdb's compactions as its journal fills", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-metrics-"));
    after(() => rm(directory, { recursive: true, force: true }));
    const store = createLowdbStore({ directory, journalBytes: 4096 });
    const service = createFormService({ store, metrics: true, webhookPollMs: 0 });
    after(() => service.close());
    const alice = (await service.admin.createAccount({ email: "carol@example.com" })) as TestUser;
    const sample = async (name: string) =>
      parseExposition((await service.metrics()).body).samples.find((s) => s.name === name)?.value;
    assert.equal(await sample("formwork_store_compactions_total"), 0);
    for (let n = 0; n < 5; n++) {
      const made = await request(service, "POST", "/api/restricted/form", {
        as: alice,
        body: formInput(`Form ${n}`),
      });
      assert.equal(made.status, 200);
    }
    await eventually(async () => ((await sample("formwork_store_compactions_total")) ?? 0) >= 1);
    assert.ok(((await sample("formwork_store_journal_bytes")) ?? -1) >= 0);
  });

  it("counts a request refused during a stop, and scrapes a closed store's service", async () => {
    const held = heldStore(createMemoryStore());
    const service = createFormService({ store: held.store, metrics: true, webhookPollMs: 0 });
    const user = (await service.admin.createAccount({ email: "dan@example.com" })) as TestUser;
    const hold = held.hold({ method: "get", collection: "tokens" });
    const running = request(service, "GET", "/api/restricted/user/form", { as: user });
    await hold.reached;
    const closing = service.close();
    const late = await service.fetch(new Request("http://localhost/api/restricted/user/form"));
    assert.equal(late.status, 503);
    hold.release();
    assert.equal((await running).status, 200);
    await closing;
    const { samples } = parseExposition((await service.metrics()).body);
    assert.deepEqual(labelSets(samples, "formwork_refused_requests_total"), [
      { code: "service_unavailable" },
    ]);
    // The store is closed: the outbox is unknown, and the scrape answers all the same.
    const age = samples.find((s) => s.name === "formwork_outbox_oldest_due_age_seconds");
    assert.ok(Number.isNaN(age?.value));
  });

  it("declares its families in a registry of the app's when given one", async () => {
    const registry = new Registry();
    const service = createFormService({ store: createMemoryStore(), metrics: { registry } });
    after(() => service.close());
    await service.fetch(new Request("http://localhost/healthz"));
    const { samples } = parseExposition(await registry.metrics());
    assert.ok(has(labelSets(samples, "formwork_http_request_duration_seconds_count"), {}));
    // One service per registry: a second one's names would clash.
    assert.throws(() => createFormService({ store: createMemoryStore(), metrics: { registry } }));
  });

  it("measures nothing and rejects metrics() unless asked", async () => {
    const service = createFormService({ store: createMemoryStore(), webhookPollMs: 0 });
    after(() => service.close());
    await assert.rejects(service.metrics(), TypeError);
  });
});
