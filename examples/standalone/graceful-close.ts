import type { Server, ServerResponse } from "node:http";

/** A server's stop in its steps (docs/design.md §10). */
export interface GracefulClose {
  /**
   * Begins the stop: every answer not yet sent closes its connection once it is, and idle
   * keep-alive connections close. The server still accepts connections, so that probes
   * (`/readyz` answering 503) and late clients get an answer rather than a refusal.
   */
  begin(): void;
  /** Stops accepting connections. @returns once no connection is left */
  close(): Promise<void>;
  /** Destroys every connection left. @returns how many answers were still being sent */
  cutOff(): number;
}

/**
 * Prepares `server` for a graceful stop. `server.close()` alone stops accepting and closes
 * the idle keep-alive connections, but leaves a connection whose response is in flight open
 * for `keepAliveTimeout` after that response: the process would either wait or cut it.
 */
export function gracefulClose(server: Server): GracefulClose {
  const open = new Set<ServerResponse>();
  let closing = false;
  server.on("request", (_request, response: ServerResponse) => {
    if (closing) {
      response.setHeader("connection", "close");
      return;
    }
    open.add(response);
    response.once("close", () => open.delete(response));
  });
  return {
    begin() {
      closing = true;
      for (const response of open) {
        if (!response.headersSent) response.setHeader("connection", "close");
        // Already answering as keep-alive: its connection turns idle once the body is out.
        else response.once("finish", () => setImmediate(() => server.closeIdleConnections()));
      }
      server.closeIdleConnections();
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    cutOff() {
      const sending = [...open].filter((response) => response.headersSent).length;
      server.closeAllConnections();
      return sending;
    },
  };
}
