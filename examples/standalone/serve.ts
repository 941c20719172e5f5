import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import {
  type CloseReport,
  createHttpWebhookSender,
  type FormService,
  type FormServiceOptions,
} from "formwork";
import { createSmtpMailer } from "formwork/adapters/smtp";
import type { ServerConfig } from "./config.ts";
import { countryOf } from "./country.ts";
import { createFileMailer } from "./file-mailer.ts";
import { gracefulClose } from "./graceful-close.ts";
import { createLogger } from "./logger.ts";
import { serveMetrics } from "./metrics-server.ts";

/** The service options every example server reads from the standalone settings. */
export function optionsFrom(config: ServerConfig) {
  return {
    countryOf,
    logger: createLogger(config.logLevel),
    limits: {
      uploadBytes: config.maxUploadBytes,
      unclaimedUploadBytes: config.maxUnclaimedUploadBytes,
      auditRetentionDays: config.auditRetentionDays,
    },
    rateLimits: {
      publicPerMinute: config.rateLimitPublicPerMinute,
      credentialPerMinute: config.rateLimitCredentialPerMinute,
    },
    allowPrivateWebhookDestinations: config.allowPrivateWebhooks,
    mailer: config.smtpUrl
      ? createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom })
      : createFileMailer({ directory: `${config.dataDir}/mail`, from: config.mailFrom }),
    // E-mails are retried as webhooks are.
    mailRetry: { retryBaseMs: config.webhookRetryBaseMs, maxAttempts: config.webhookMaxAttempts },
    webhookLeaseMs: config.webhookLeaseMs,
    sweepIntervalMs: config.sweepIntervalMs,
    metrics: config.metricsPort !== undefined,
    webhookSender: createHttpWebhookSender({
      allowPrivateDestinations: config.allowPrivateWebhooks,
      retryBaseMs: config.webhookRetryBaseMs,
      maxAttempts: config.webhookMaxAttempts,
    }),
  } satisfies Partial<FormServiceOptions>;
}

/**
 * Serves `service` on the configured host and port, cutting off clients that take longer
 * than the configured timeouts to send their headers or their request, and prints the
 * `listening on` line with `note`; with `METRICS_PORT`, `GET /metrics` listens first on a port
 * of its own (metrics-server.ts). `beside`, when given, sees each request first and answers
 * those it returns `true` for. On SIGINT or SIGTERM `/readyz` answers 503 at once and every
 * new request 503 (`/healthz` still 200); it lets the requests in flight finish and their
 * answers go out, closes the service (pending writes, queued webhook deliveries handed
 * back), stops listening, then exits 0. Past `STOP_TIMEOUT_MS` it cuts off what still runs,
 * closes the store all the same, prints one line saying what it cut off and exits 1
 * (docs/design.md §10). A port in use is one line on stderr and exit 1.
 */
export function serveUntilStopped(
  service: FormService,
  config: ServerConfig,
  note: string,
  beside?: (incoming: IncomingMessage, outgoing: ServerResponse) => boolean,
) {
  const server = createServer(
    {
      headersTimeout: config.headersTimeoutMs,
      requestTimeout: config.requestTimeoutMs,
      // Node checks both timeouts on this interval (30 s by default): check often enough
      // that a stalled client is cut off near its timeout rather than up to 30 s later.
      connectionsCheckingInterval: Math.min(30_000, Math.max(100, config.headersTimeoutMs / 4)),
    },
    (incoming, outgoing) => {
      if (beside?.(incoming, outgoing)) return;
      listener ??= bridgeTo(service);
      listener.then(
        (listen) => listen(incoming, outgoing),
        (error: unknown) => {
          console.error("formwork: cannot load the request bridge", error);
          outgoing.writeHead(500).end();
        },
      );
    },
  );
  let listener: Promise<RequestListener> | undefined;
  const connections = gracefulClose(server);
  const fail = (line: string) => {
    console.error(line);
    void exitWith(async () => {
      await service.close();
      return 1;
    });
  };
  const refuse = (error: NodeJS.ErrnoException) =>
    fail(
      error.code === "EADDRINUSE"
        ? `PORT ${config.port} is in use`
        : `formwork: cannot listen on ${config.host}:${config.port}: ${error.message}`,
    );
  server.once("error", refuse);
  const metrics =
    config.metricsPort === undefined ? undefined : serveMetrics(service, config, fail);
  const listen = () =>
    server.listen(config.port, config.host, () => {
      server.off("error", refuse);
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : config.port;
      console.log(`formwork listening on http://${config.host}:${port} (${note})`);
      // Loaded once the port is open rather than before: the first request waits for it.
      listener ??= bridgeTo(service);
    });
  if (metrics) void metrics.then(listen);
  else listen();
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(
      `formwork: ${signal}, finishing the requests in flight (at most STOP_TIMEOUT_MS, ${config.stopTimeoutMs} ms)`,
    );
    connections.begin();
    const deadline = new AbortController();
    let sending = 0;
    const timer = setTimeout(() => {
      // The service lists what still runs first; then the connections go, ending uploads.
      deadline.abort();
      sending = connections.cutOff();
    }, config.stopTimeoutMs);
    void exitWith(async () => {
      // The service waits for the requests it is answering; the server for their answers to go out.
      const { cutOff } = await service.close({ signal: deadline.signal });
      await connections.close();
      clearTimeout(timer);
      if (cutOff.length === 0 && sending === 0) return 0;
      console.error(cutOffLine(cutOff, sending, config.stopTimeoutMs));
      return 1;
    });
  };
  process.on("SIGINT", () => stop("SIGINT"));
  process.on("SIGTERM", () => stop("SIGTERM"));
}

/** The line a stop that ran out of time prints: what it cut off, routes by pattern. */
export function cutOffLine(cutOff: CloseReport["cutOff"], sending: number, timeoutMs: number) {
  const byRoute = new Map<string, number>();
  for (const { method, route } of cutOff) {
    const key = `${method} ${route}`;
    byRoute.set(key, (byRoute.get(key) ?? 0) + 1);
  }
  const routes = [...byRoute].map(([key, count]) => (count > 1 ? `${count} × ${key}` : key));
  const parts = [
    ...(cutOff.length > 0
      ? [`${plural(cutOff.length, "request")} still running (${routes.join(", ")})`]
      : []),
    ...(sending > 0 ? [`${plural(sending, "answer")} still being sent`] : []),
  ];
  return `formwork: STOP_TIMEOUT_MS (${timeoutMs} ms) ran out; cut off ${parts.join(" and ")}`;
}

function plural(count: number, noun: string) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

type RequestListener = (incoming: IncomingMessage, outgoing: ServerResponse) => unknown;

/**
 * The Node request listener that answers with `service`. `@hono/node-server` (and undici,
 * which Node loads when it touches the global `Request`) is imported here, not at start:
 * about a fifth of the cold start went to it.
 */
async function bridgeTo(service: FormService): Promise<RequestListener> {
  const { getRequestListener } = await import("@hono/node-server");
  // The Node request goes along as the body: uploads parse it directly (ConnectionInfo.body).
  return getRequestListener((request, env) =>
    service.fetch(request, {
      clientAddress: env.incoming.socket.remoteAddress,
      body: env.incoming,
    }),
  );
}

async function exitWith(stop: () => Promise<number>) {
  try {
    process.exit(await stop());
  } catch (error) {
    console.error("formwork: stopping failed", error);
    process.exit(1);
  }
}
