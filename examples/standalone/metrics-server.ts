import { createServer, type Server } from "node:http";
import type { FormService } from "formwork";
import type { ServerConfig } from "./config.ts";

/**
 * Serves `GET /metrics` (the service's Prometheus metrics, docs/design.md §10) on
 * `METRICS_PORT` at `HOST`, a listener of its own: the public port never answers it, so a
 * firewall or a Kubernetes port list keeps it inside. Any other path answers 404, another
 * method 405. Prints `formwork metrics on http://HOST:PORT/metrics` once listening.
 * @param refuse told the one line that says why it cannot listen (a port in use)
 * @returns once it listens, the server
 */
export function serveMetrics(
  service: FormService,
  config: ServerConfig,
  refuse: (line: string) => void,
): Promise<Server> {
  const server = createServer((incoming, outgoing) => {
    const path = (incoming.url ?? "/").split("?")[0];
    if (path !== "/metrics") return void outgoing.writeHead(404).end("Not found\n");
    if (incoming.method !== "GET" && incoming.method !== "HEAD") {
      return void outgoing.writeHead(405, { allow: "GET, HEAD" }).end();
    }
    service.metrics().then(
      ({ contentType, body }) => {
        outgoing.writeHead(200, { "content-type": contentType, "cache-control": "no-store" });
        outgoing.end(incoming.method === "HEAD" ? undefined : body);
      },
      (error: unknown) => {
        console.error("formwork: metrics scrape failed", error);
        outgoing.writeHead(500).end();
      },
    );
  });
  return new Promise((resolve) => {
    server.once("error", (error: NodeJS.ErrnoException) => {
      refuse(
        error.code === "EADDRINUSE"
          ? `METRICS_PORT ${config.metricsPort} is in use`
          : `formwork: cannot listen on ${config.host}:${config.metricsPort}: ${error.message}`,
      );
    });
    server.listen(config.metricsPort, config.host, () => {
      const address = server.address();
      const port = typeof address === "object" && address ? address.port : config.metricsPort;
      console.log(`formwork metrics on http://${config.host}:${port}/metrics`);
      resolve(server);
    });
  });
}
