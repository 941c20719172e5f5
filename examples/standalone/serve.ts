import { serve } from "@hono/node-server";
import { createHttpWebhookSender, type FormService, type FormServiceOptions } from "formwork";
import type { ServerConfig } from "./config.ts";
import { countryOf } from "./country.ts";
import { createLogger } from "./logger.ts";

/** The service options every example server reads from the standalone settings. */
export function optionsFrom(config: ServerConfig) {
  return {
    countryOf,
    logger: createLogger(config.logLevel),
    limits: { uploadBytes: config.maxUploadBytes },
    allowPrivateWebhookDestinations: config.allowPrivateWebhooks,
    webhookSender: createHttpWebhookSender({
      allowPrivateDestinations: config.allowPrivateWebhooks,
      retryBaseMs: config.webhookRetryBaseMs,
      maxAttempts: config.webhookMaxAttempts,
    }),
  } satisfies Partial<FormServiceOptions>;
}

/**
 * Serves `service` on the configured host and port, prints the `listening on` line with
 * `note`, and on SIGINT or SIGTERM stops taking requests and closes the service, which
 * finishes pending writes and hands queued webhook deliveries back.
 */
export function serveUntilStopped(service: FormService, config: ServerConfig, note: string) {
  const server = serve(
    {
      hostname: config.host,
      port: config.port,
      fetch: (request, env) =>
        service.fetch(request, { clientAddress: env.incoming.socket.remoteAddress }),
    },
    (info) => console.log(`formwork listening on http://${config.host}:${info.port} (${note})`),
  );
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`formwork: ${signal}, finishing pending writes`);
    server.close();
    await service.close();
    process.exit(0);
  };
  process.on("SIGINT", () => void stop("SIGINT"));
  process.on("SIGTERM", () => void stop("SIGTERM"));
}
