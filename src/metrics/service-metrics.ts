/**
 * The service's Prometheus families (docs/design.md §10), on a registry of its own: every
 * label value comes from a bounded set (route patterns, methods, statuses, operation and
 * collection names, error codes, delivery kinds and outcomes), never a path, an id or a
 * value. Counts and latencies are recorded as they happen; the outbox and the store's own
 * figures are read when the registry is scraped.
 */
import type { Registry } from "prom-client";
import Counter from "prom-client/lib/counter.js";
import Gauge from "prom-client/lib/gauge.js";
import Histogram from "prom-client/lib/histogram.js";
import PromRegistry from "prom-client/lib/registry.js";
import type { StoreStats } from "../ports/store.ts";

/** What the delivery outbox holds, as a scrape reads it. */
export interface OutboxBacklog {
  /** Entries in flight, between attempts or due, each outbox partition counted up to a cap. */
  entries: number;
  /** Those due now: waiting for a worker. */
  due: number;
  /** Seconds since the oldest due entry came due; 0 when none is due. */
  oldestDueSeconds: number;
}

/** Where the figures read at a scrape come from. */
export interface ScrapeSources {
  /** The outbox's backlog, read by a bounded query; `undefined`: no outbox families. */
  outbox?: () => Promise<OutboxBacklog>;
  /** The store's own figures (`Store.stats`); `undefined`: no store stats families. */
  storeStats?: () => StoreStats | Promise<StoreStats>;
}

/** The scrape of a service's metrics. */
export interface MetricsText {
  /** The exposition format's media type, for the `Content-Type` of a `/metrics` answer. */
  contentType: string;
  /** The exposition text. */
  body: string;
}

/** The kinds of delivery attempts and how each came out. */
export type DeliveryKind = "webhook" | "email" | "destination";

/** How a delivery attempt came out, as the metrics label it. */
export type DeliveryOutcome =
  | "delivered"
  | "http_error"
  | "network_error"
  | "timeout"
  | "refused"
  | "error";

/** The families of one service and how to record into them. */
export type ServiceMetrics = ReturnType<typeof createServiceMetrics>;

const secondsBuckets = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const storeBuckets = [
  0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1,
];
const sizeBuckets = [1024, 16_384, 262_144, 1_048_576, 4_194_304, 16_777_216, 67_108_864];

/**
 * Declares the families on `registry` (a new one by default).
 * @throws {Error} when `registry` already holds a family of the same name (two services
 *   over one registry).
 */
export function createServiceMetrics(
  sources: ScrapeSources,
  registry: Registry = new PromRegistry(),
) {
  const registers = [registry];
  const requests = new Histogram({
    name: "formwork_http_request_duration_seconds",
    help: "Requests by route pattern, method and status: seconds to the response head",
    labelNames: ["method", "route", "status"] as const,
    buckets: secondsBuckets,
    registers,
  });
  const storeCalls = new Histogram({
    name: "formwork_store_call_duration_seconds",
    help: "Store calls by operation and collection, and their seconds",
    labelNames: ["operation", "collection"] as const,
    buckets: storeBuckets,
    registers,
  });
  const conflicts = new Counter({
    name: "formwork_store_conflicts_total",
    help: "Store writes refused by a conflict (reason: etag or exists)",
    labelNames: ["operation", "collection", "reason"] as const,
    registers,
  });
  const deliveries = new Counter({
    name: "formwork_delivery_attempts_total",
    help: "Delivery attempts by kind (webhook, email, destination) and outcome",
    labelNames: ["kind", "outcome"] as const,
    registers,
  });
  const refused = new Counter({
    name: "formwork_refused_requests_total",
    help: "Requests answered with the failure envelope, by its error code",
    labelNames: ["code"] as const,
    registers,
  });
  const rateLimited = new Counter({
    name: "formwork_rate_limited_requests_total",
    help: "Requests refused 429 by a rate limit: public, credential or failed_authentication",
    labelNames: ["limit"] as const,
    registers,
  });
  const uploads = new Histogram({
    name: "formwork_upload_size_bytes",
    help: "Attachment uploads stored, by size in bytes (the sum: bytes uploaded)",
    buckets: sizeBuckets,
    registers,
  });
  if (sources.outbox) outboxGauges(sources.outbox, registers);
  if (sources.storeStats) storeStatsFamilies(sources.storeStats, registers);
  return {
    /** One request answered. */
    request(method: string, route: string, status: number, seconds: number) {
      requests.observe({ method, route, status: String(status) }, seconds);
    },
    /** One store call made. */
    storeCall(operation: string, collection: string, seconds: number) {
      storeCalls.observe({ operation, collection }, seconds);
    },
    /** One store call refused by a conflict. */
    storeConflict(operation: string, collection: string, reason: string) {
      conflicts.inc({ operation, collection, reason });
    },
    /** One delivery attempt made. */
    delivery(kind: DeliveryKind, outcome: DeliveryOutcome) {
      deliveries.inc({ kind, outcome });
    },
    /** One request answered with the failure envelope of `code`; `limit`, when rate-limited. */
    refused(code: string, limit?: string) {
      refused.inc({ code });
      if (limit) rateLimited.inc({ limit });
    },
    /** One upload stored. */
    upload(bytes: number) {
      uploads.observe(bytes);
    },
    /** The exposition text of every family, the scraped ones read now. */
    async scrape(): Promise<MetricsText> {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}

/**
 * The outbox's gauges, from one read of the backlog per scrape. A read that fails (the store
 * is down, or closed) sets them to NaN, "unknown", rather than failing the whole scrape or
 * showing an old or an empty outbox.
 */
function outboxGauges(read: () => Promise<OutboxBacklog>, registers: Registry[]) {
  const unknown = { entries: Number.NaN, due: Number.NaN, oldestDueSeconds: Number.NaN };
  const backlog = shared(() => read().catch(() => unknown));
  new Gauge({
    name: "formwork_outbox_entries",
    help: "Deliveries in the outbox by state (due: waiting for a worker; all), counted up to 100 per partition of 17",
    labelNames: ["state"] as const,
    registers,
    async collect() {
      const { entries, due } = await backlog();
      this.set({ state: "all" }, entries);
      this.set({ state: "due" }, due);
    },
  });
  new Gauge({
    name: "formwork_outbox_oldest_due_age_seconds",
    help: "Seconds since the oldest due outbox entry came due; 0 when none is due",
    registers,
    async collect() {
      this.set((await backlog()).oldestDueSeconds);
    },
  });
}

/**
 * The store's own figures, where it has them (an embedded store's journal): the journal's
 * size NaN when the store does not say it (before it opened, after it closed).
 */
function storeStatsFamilies(read: () => StoreStats | Promise<StoreStats>, registers: Registry[]) {
  const stats = shared(async () => read());
  new Gauge({
    name: "formwork_store_journal_bytes",
    help: "Bytes of the store's journal file being written",
    registers,
    async collect() {
      this.set((await stats()).journalBytes ?? Number.NaN);
    },
  });
  new Counter({
    name: "formwork_store_compactions_total",
    help: "Compactions of the store's journal since it opened",
    registers,
    async collect() {
      const { compactions } = await stats();
      // Unknown (the store closed): the count stays as last read, as a counter does.
      if (compactions === undefined) return;
      this.reset();
      this.inc(compactions);
    },
  });
}

/** `read`, with the calls made while one runs sharing its answer (one read per scrape). */
function shared<T>(read: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  return () => {
    running ??= read().finally(() => {
      running = undefined;
    });
    return running;
  };
}
