/**
 * The ports the service is given, wrapped once for what watches it (docs/design.md §10): the
 * trace decorators always (no-op spans until the embedder installs a tracer provider), and
 * inside them the metric decorators when the service keeps metrics, none otherwise.
 */
import type { Tracer } from "@opentelemetry/api";
import { outboxBacklog } from "./domain/webhooks/index.ts";
import { measuredBlobs } from "./metrics/blob-metrics.ts";
import {
  measuredDestinations,
  measuredMailer,
  measuredSender,
} from "./metrics/delivery-metrics.ts";
import { createServiceMetrics, type ServiceMetrics } from "./metrics/service-metrics.ts";
import { measuredStore } from "./metrics/store-metrics.ts";
import type { BlobStore } from "./ports/blob-store.ts";
import type { Destinations } from "./ports/destinations.ts";
import type { Mailer } from "./ports/mailer.ts";
import type { Store } from "./ports/store.ts";
import type { WebhookSender } from "./ports/webhook-sender.ts";
import type { FormServiceOptions } from "./service-options.ts";
import { tracedDestinations, tracedMailer, tracedSender } from "./traces/delivery-spans.ts";
import { tracedStore } from "./traces/store-spans.ts";
import { createNetworkDestinations } from "./webhooks/destinations.ts";
import { createHttpWebhookSender } from "./webhooks/http-sender.ts";

/** The ports a service watches. */
export interface WatchedPorts {
  store: Store;
  blobs: BlobStore | undefined;
  sender: WebhookSender;
  mailer: Mailer | undefined;
  destinations: Destinations;
}

/**
 * The ports of `options` (with the default sender and destinations) in their decorators,
 * and the service's metrics when `options.metrics` asks for them.
 */
export function watchedPorts(options: FormServiceOptions, tracer: Tracer) {
  const metrics = metricsOf(options);
  return { ports: instrumented(portsOf(options), tracer, metrics), metrics };
}

/** `ports` in their decorators: spans through `tracer`, and `metrics` when given. */
function instrumented(
  ports: WatchedPorts,
  tracer: Tracer,
  metrics: ServiceMetrics | undefined,
): WatchedPorts {
  const { store, blobs, sender, mailer, destinations } = ports;
  if (!metrics) {
    return {
      store: tracedStore(store, tracer),
      blobs,
      sender: tracedSender(sender, tracer),
      mailer: mailer && tracedMailer(mailer, tracer),
      destinations: tracedDestinations(destinations, tracer),
    };
  }
  return {
    store: tracedStore(measuredStore(store, metrics), tracer),
    blobs: blobs && measuredBlobs(blobs, metrics),
    sender: tracedSender(measuredSender(sender, metrics), tracer),
    mailer: mailer && tracedMailer(measuredMailer(mailer, metrics), tracer),
    destinations: tracedDestinations(measuredDestinations(destinations, metrics), tracer),
  };
}

/**
 * The service's metrics when `options.metrics` asks for them: the outbox read at a scrape
 * from the store itself, so that the scrape's queries count in no family.
 */
function metricsOf(options: FormServiceOptions) {
  if (!options.metrics) return undefined;
  const { store } = options;
  const now = options.now ?? (() => new Date());
  const sources = {
    outbox: () => outboxBacklog({ store, now }),
    storeStats: store.stats && (() => store.stats?.() ?? {}),
  };
  return createServiceMetrics(
    sources,
    typeof options.metrics === "object" ? options.metrics.registry : undefined,
  );
}

/** The ports of `options`, with the default sender and destinations. */
function portsOf(options: FormServiceOptions): WatchedPorts {
  const allowPrivateDestinations = options.allowPrivateWebhookDestinations ?? false;
  return {
    store: options.store,
    blobs: options.blobs,
    sender: options.webhookSender ?? createHttpWebhookSender({ allowPrivateDestinations }),
    mailer: options.mailer,
    destinations: createNetworkDestinations(allowPrivateDestinations),
  };
}
