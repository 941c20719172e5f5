/**
 * Traces (docs/design.md §10): with a tracer provider and an AsyncLocalStorage context
 * manager installed, as an embedder would, one S2 gives one SERVER span named by its route
 * pattern, its store calls as its children and a span for the webhook delivery attempt it
 * queued; no span holds the form id, a token or an answer. Without a provider nothing is
 * recorded and the service works as before.
 */
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { context, SpanKind, SpanStatusCode, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import {
  BasicTracerProvider,
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
} from "@opentelemetry/sdk-trace-base";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService } from "../../src/index.ts";
import { StoreConflictError } from "../../src/ports/store.ts";
import { tracedStore } from "../../src/traces/store-spans.ts";
import { serviceTracer } from "../../src/traces/tracer.ts";
import { request } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";
import { storeKinds } from "../store-kinds.ts";
import { eventually, startReceiver } from "../webhooks/receiver.ts";
import { withWebhookForm } from "../webhooks/setup.ts";

const exporter = new InMemorySpanExporter();

/** Every attribute value of `spans`, as text. */
function attributeValues(spans: ReadableSpan[]): string[] {
  return spans.flatMap((span) => Object.values(span.attributes).map(String));
}

describe("traces, with a tracer provider installed", () => {
  before(() => {
    const provider = new BasicTracerProvider({
      spanProcessors: [new SimpleSpanProcessor(exporter)],
    });
    trace.setGlobalTracerProvider(provider);
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  });
  after(() => {
    trace.disable();
    context.disable();
  });

  for (const [name, open] of storeKinds("memory", "lowdb", "cosmos")) {
    it(`gives one S2 a SERVER span, its store calls as children and a delivery attempt span (${name})`, async () => {
      const receiver = await startReceiver([200]);
      const env = await withWebhookForm({ store: serviceQueriesOnly(await open()) });
      const hook = await env.addHook({ webhook_name: "traced", webhook_url: receiver.url });
      assert.equal(hook.status, 200);
      exporter.reset();

      const posted = await env.submit("Ada Lovelace");
      assert.equal(posted.status, 200);
      await receiver.waitFor(1);
      await eventually(async () =>
        exporter.getFinishedSpans().some((span) => span.name === "deliver webhook"),
      );
      const spans = exporter.getFinishedSpans();

      const servers = spans.filter((span) => span.kind === SpanKind.SERVER);
      assert.deepEqual(
        servers.map((span) => span.name),
        ["POST /api/form/:formId/submission"],
      );
      const [server] = servers as [ReadableSpan];
      assert.deepEqual(server.attributes, {
        "http.request.method": "POST",
        "http.route": "/api/form/:formId/submission",
        "http.response.status_code": 200,
      });
      assert.equal(server.status.code, SpanStatusCode.UNSET);
      assert.equal(server.instrumentationScope.name, "formwork");

      const serverId = server.spanContext().spanId;
      const children = spans.filter((span) => span.parentSpanContext?.spanId === serverId);
      const storeCalls = children.filter((span) => span.name.startsWith("store."));
      assert.ok(storeCalls.length >= 2, storeCalls.map((span) => span.name).join(", "));
      for (const call of storeCalls) {
        assert.equal(call.kind, SpanKind.CLIENT);
        assert.equal(call.spanContext().traceId, server.spanContext().traceId);
        assert.equal(typeof call.attributes["db.operation.name"], "string");
      }
      const batch = storeCalls.find((span) => span.attributes["db.operation.name"] === "batch");
      assert.ok(batch, storeCalls.map((span) => span.name).join(", "));
      assert.equal(typeof batch.attributes["db.operation.batch.size"], "number");
      const formRead = storeCalls.find((span) => span.name === "store.get forms");
      assert.equal(formRead?.attributes["db.collection.name"], "forms");

      const delivery = spans.find((span) => span.name === "deliver webhook");
      assert.ok(delivery);
      assert.equal(delivery.kind, SpanKind.CLIENT);
      assert.deepEqual(delivery.attributes, {
        "formwork.delivery.kind": "webhook",
        "server.address": "127.0.0.1",
        "formwork.delivery.attempt": 1,
        "formwork.delivery.outcome": "response",
        "http.response.status_code": 200,
      });

      const values = attributeValues(spans).join("\n");
      const { token_id, token_secret } = env.alice;
      for (const secret of [env.formId, posted.body.id, "Ada Lovelace", token_id, token_secret]) {
        assert.ok(!values.includes(secret), `a span attribute holds ${secret}`);
      }
      assert.ok(!values.includes("/hook"), "a span attribute holds the webhook's path");
      // Before the Cosmos stand-in stops (its `after` runs first): the worker still reads.
      await env.service.close();
    });
  }

  it("marks a store call that met a stale etag as a conflict", async () => {
    const store = tracedStore(createMemoryStore(), serviceTracer());
    exporter.reset();
    await store.create("forms", "a-form", { id: "a-form" });
    await assert.rejects(
      store.replace("forms", "a-form", { id: "a-form" }, { ifMatch: '"stale"' }),
      StoreConflictError,
    );
    const spans = exporter.getFinishedSpans();
    assert.deepEqual(
      spans.map((span) => span.name),
      ["store.create forms", "store.replace forms"],
    );
    const replace = spans[1] as ReadableSpan;
    assert.equal(replace.attributes["formwork.store.conflict"], "etag");
    assert.equal(replace.attributes["error.type"], "StoreConflictError");
    assert.equal(replace.status.code, SpanStatusCode.ERROR);
  });

  it("names a request that matched no route by its method, and fails a 5xx", async () => {
    const store = createMemoryStore();
    store.get = () => Promise.reject(new Error("the store is down"));
    const service = createFormService({ store, webhookPollMs: 0, sweepIntervalMs: 0 });
    after(() => service.close());
    const env = { call: (method: string, path: string) => request(service, method, path) };
    exporter.reset();
    const missing = await env.call("GET", "/nowhere/at/all");
    assert.equal(missing.status, 404);
    const health = await env.call("GET", "/healthz");
    assert.equal(health.status, 200);
    const ready = await env.call("GET", "/readyz");
    assert.equal(ready.status, 503);
    const servers = exporter.getFinishedSpans().filter((span) => span.kind === SpanKind.SERVER);
    assert.deepEqual(
      servers.map((span) => [span.name, span.status.code]),
      [
        ["GET", SpanStatusCode.UNSET],
        ["GET /healthz", SpanStatusCode.UNSET],
        ["GET /readyz", SpanStatusCode.ERROR],
      ],
    );
    const failedRead = exporter.getFinishedSpans().find((span) => span.name === "store.get forms");
    assert.equal(failedRead?.status.code, SpanStatusCode.ERROR);
    assert.equal(failedRead?.attributes["error.type"], "Error");
  });
});

describe("traces, with no tracer provider installed", () => {
  it("records nothing, and S2 and its webhook work as before", async () => {
    exporter.reset();
    const receiver = await startReceiver([200]);
    const env = await withWebhookForm();
    assert.equal((await env.addHook({ webhook_name: "r", webhook_url: receiver.url })).status, 200);
    const posted = await env.submit("Ada");
    assert.equal(posted.status, 200);
    await receiver.waitFor(1);
    assert.deepEqual(exporter.getFinishedSpans(), []);
    assert.equal(trace.getActiveSpan(), undefined);
  });
});
