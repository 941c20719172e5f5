import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after } from "node:test";

/** One request a receiver got. */
export interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}

/** What the receiver does with a request: answer a status, hang, or drop the connection. */
export type Behaviour = number | "hang" | "drop" | { status: number; delayMs: number };

/**
 * A real HTTP receiver on loopback. It answers each request with the next behaviour of
 * `plan`, then with the last one for ever; with `perMessage`, the plan restarts for each
 * `webhook-id`. `waitFor(n)` resolves once n requests arrived. `port`: a free one by default.
 */
export async function startReceiver(plan: Behaviour[] = [200], perMessage = false, port = 0) {
  const received: Received[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  const hanging: ServerResponse[] = [];
  const server = createServer((request, response) => {
    let body = "";
    request.setEncoding("utf8");
    request.on("data", (chunk: string) => {
      body += chunk;
    });
    request.on("end", () => {
      const id = request.headers["webhook-id"];
      const seen = perMessage
        ? received.filter((r) => r.headers["webhook-id"] === id).length
        : received.length;
      const behaviour = plan[Math.min(seen, plan.length - 1)] ?? 200;
      received.push({ headers: request.headers, body });
      for (const waiter of waiters.filter((w) => received.length >= w.count)) waiter.resolve();
      if (behaviour === "hang") hanging.push(response);
      else if (behaviour === "drop") request.socket.destroy();
      else if (typeof behaviour === "number") response.writeHead(behaviour).end();
      else setTimeout(() => response.writeHead(behaviour.status).end(), behaviour.delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  const listening = (server.address() as AddressInfo).port;
  const close = () =>
    new Promise<void>((resolve) => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      server.close(() => resolve());
    });
  after(close);
  return {
    url: `http://127.0.0.1:${listening}/hook`,
    received,
    close,
    waitFor(count: number, timeoutMs = 10_000) {
      if (received.length >= count) return Promise.resolve();
      return new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`got ${received.length} of ${count} requests`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve();
          },
        });
      });
    },
  };
}

/** Resolves once `check` holds, polling; for states the worker reaches in the background. */
export async function eventually(check: () => Promise<boolean>, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error("condition not reached in time");
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
