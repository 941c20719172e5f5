import type { Server, ServerResponse } from "node:http";

/**
 * Prepares `server` for a graceful stop. `server.close()` alone stops accepting and closes
 * the idle keep-alive connections, but leaves a connection whose response is in flight open
 * for `keepAliveTimeout` after that response: the process would either wait or cut it.
 * @returns a function that stops accepting connections, makes every response not yet sent
 *   close its connection once it is, and resolves when no connection is left.
 */
export function gracefulClose(server: Server): () => Promise<void> {
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
  return () => {
    closing = true;
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    for (const response of open) {
      if (!response.headersSent) response.setHeader("connection", "close");
      // Already answering as keep-alive: its connection turns idle once the body is out.
      else response.once("finish", () => setImmediate(() => server.closeIdleConnections()));
    }
    return closed;
  };
}
