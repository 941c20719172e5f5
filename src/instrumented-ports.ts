/**
 * The ports the service is given, wrapped once for what watches it (docs/design.md §10): the
 * trace decorators always (no-op spans until the embedder installs a tracer provider), and
 * inside them the metric decorators when the service keeps metrics, none otherwise.
 */
import type { Tracer } from "@opentelemetry/api";
import { measuredBlobs } from "./metrics/blob-metrics.ts";
import {
  measuredDestinations,
  measuredMailer,
  measuredSender,
} from "./metrics/delivery-metrics.ts";
import type { ServiceMetrics } from "./metrics/service-metrics.ts";
import { measuredStore } from "./metrics/store-metrics.ts";
import type { BlobStore } from "./ports/blob-store.ts";
import type { Destinations } from "./ports/destinations.ts";
import type { Mailer } from "./ports/mailer.ts";
import type { Store } from "./ports/store.ts";
import type { WebhookSender } from "./ports/webhook-sender.ts";
import { tracedDestinations, tracedMailer, tracedSender } from "./traces/delivery-spans.ts";
import { tracedStore } from "./traces/store-spans.ts";

/** The ports a service watches. */
export interface WatchedPorts {
  store: Store;
  blobs: BlobStore | undefined;
  sender: WebhookSender;
  mailer: Mailer | undefined;
  destinations: Destinations;
}

/** `ports` in their decorators: spans through `tracer`, and `metrics` when given. */
export function instrumented(
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
