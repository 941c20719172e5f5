/**
 * The Cosmos DB stand-in for tests: `@vercel/cosmosdb-server`, started in this process on a
 * free loopback port over HTTPS with its self-signed certificate. Every request it receives
 * is recorded by kind, so tests can count what an operation costs, and the next requests can
 * be answered with a fault (429, 503) instead.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Agent } from "node:https";
import type { AddressInfo } from "node:net";
import { after } from "node:test";
import { CosmosClient } from "@azure/cosmos";
import { createHttpsServer } from "@vercel/cosmosdb-server";
import { makeStandInBatchesAtomic } from "../../examples/azure/atomic-batches.ts";

/** What one request to the emulator was. */
export type RequestKind =
  | "read"
  | "create"
  | "replace"
  | "patch"
  | "delete"
  | "query"
  | "query plan"
  | "batch"
  | "metadata";

/** A running emulator. */
export interface CosmosEmulator {
  endpoint: string;
  /** Any base64 key works: the emulator checks no signature. */
  key: string;
  /** Accepts the emulator's self-signed certificate; for tests only. */
  agent: Agent;
  /** Every request received since the last `requests.length = 0`, by kind. */
  requests: RequestKind[];
  /** A client with endpoint discovery off and the test agent. */
  client(): CosmosClient;
  /** Answers the next `count` requests with `status` (429 asks to retry after 1 ms). */
  failNext(count: number, status: number): void;
  /**
   * Runs `action` when the next request of `kind` arrives, and serves it only after, unless
   * the action answers `"drop"`: the request is then never served (its connection is cut).
   */
  before(kind: RequestKind, action: () => Promise<unknown>): void;
  stop(): Promise<void>;
}

/** Starts an emulator, stopped again after the test file. */
export async function startCosmosEmulator(): Promise<CosmosEmulator> {
  // Transactional batches all or nothing, as on Cosmos DB (examples/azure/atomic-batches.ts).
  makeStandInBatchesAtomic();
  const server = createHttpsServer({ keepAlive: true });
  // Node closes a kept-alive connection after 5 s idle by default; a client that sends on it
  // just then gets ECONNRESET, which the Cosmos SDK retries for reads but not for writes. The
  // SDK keeps its connections open, so the stand-in does too, as Cosmos DB's gateway does.
  server.keepAliveTimeout = 0;
  const [serve] = server.listeners("request") as ((
    q: IncomingMessage,
    s: ServerResponse,
  ) => void)[];
  if (!serve) throw new Error("cosmosdb-server has no request handler");
  server.removeAllListeners("request");
  const requests: RequestKind[] = [];
  const faults: number[] = [];
  const hooks = new Map<RequestKind, () => Promise<unknown>>();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    const kind = kindOf(request);
    requests.push(kind);
    const hook = hooks.get(kind);
    if (hook) {
      hooks.delete(kind);
      void hook().then(
        (outcome) => (outcome === "drop" ? request.socket.destroy() : serve(request, response)),
        () => serve(request, response),
      );
      return;
    }
    const fault = faults.shift();
    if (fault === undefined) return serve(request, response);
    response.writeHead(fault, { "content-type": "application/json", "x-ms-retry-after-ms": "1" });
    response.end(JSON.stringify({ code: String(fault), message: "injected by the test" }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const endpoint = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const agent = new Agent({ rejectUnauthorized: false, keepAlive: true });
  const clients: CosmosClient[] = [];
  const emulator: CosmosEmulator = {
    endpoint,
    key: Buffer.from("cosmosdb-server test key").toString("base64"),
    agent,
    requests,
    client() {
      const client = new CosmosClient({
        endpoint,
        key: emulator.key,
        agent,
        connectionPolicy: { enableEndpointDiscovery: false },
      });
      clients.push(client);
      return client;
    },
    failNext(count, status) {
      faults.push(...Array.from({ length: count }, () => status));
    },
    before(kind, action) {
      hooks.set(kind, action);
    },
    async stop() {
      for (const client of clients.splice(0)) client.dispose();
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  after(() => emulator.stop());
  return emulator;
}

/** What one request to the stand-in is, by its method, path and headers. */
export function kindOf(request: IncomingMessage): RequestKind {
  const { method = "", headers } = request;
  const path = (request.url ?? "").split("?")[0] ?? "";
  if (/\/docs\/[^/]+$/.test(path)) {
    if (method === "GET") return "read";
    if (method === "PUT") return "replace";
    if (method === "PATCH") return "patch";
    if (method === "DELETE") return "delete";
  }
  if (/\/docs$/.test(path) && method === "POST") {
    if (headers["x-ms-cosmos-is-query-plan-request"]) return "query plan";
    if (headers["x-ms-cosmos-is-batch-request"]) return "batch";
    if (headers["x-ms-documentdb-isquery"]) return "query";
    return "create";
  }
  return "metadata";
}

/** How many of each kind a list holds, e.g. `{ read: 2, query: 1 }`. */
export function countKinds<K extends string>(kinds: readonly K[]): Partial<Record<K, number>> {
  const counts: Partial<Record<K, number>> = {};
  for (const kind of kinds) counts[kind] = (counts[kind] ?? 0) + 1;
  return counts;
}
