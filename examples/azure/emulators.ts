/**
 * Local stand-ins for Azure, from the devDependencies: Azurite's blob service (a child
 * process) and `@vercel/cosmosdb-server` for Cosmos DB (in this process). Both keep their data
 * in memory and listen on loopback. `npm run dev:azure` runs the Azure server on them; the
 * tests start them too.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { dirname, join } from "node:path";
import { createHttpServer } from "@vercel/cosmosdb-server";
import { makeStandInBatchesAtomic } from "./atomic-batches.ts";

/** Azurite's well-known development account (public, documented, for emulators only). */
export const devAccount = {
  name: "devstoreaccount1",
  key: "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==",
};

/** A running Azurite blob service. */
export interface Azurite {
  /** The account's blob endpoint, e.g. `http://127.0.0.1:41234/devstoreaccount1`. */
  blobEndpoint: string;
  /** A connection string for the development account. */
  connectionString: string;
  /** Stops Azurite and waits for it to exit. */
  stop(): Promise<void>;
  /** Kills Azurite at once, e.g. from a `process.on("exit")` handler, which cannot wait. */
  kill(): void;
}

const startTimeoutMs = 30_000;

/** Starts Azurite's blob service in memory on a free loopback port. */
export async function startAzurite(): Promise<Azurite> {
  const main = join(
    dirname(createRequire(import.meta.url).resolve("azurite/package.json")),
    "dist/src/blob/main.js",
  );
  const args = ["--blobHost", "127.0.0.1", "--blobPort", "0", "--inMemoryPersistence"];
  args.push("--skipApiVersionCheck", "--loose", "--silent", "--disableTelemetry");
  // Coverage and test-runner settings of this process mean nothing to Azurite.
  const { NODE_V8_COVERAGE: _, NODE_TEST_CONTEXT: __, ...env } = process.env;
  const child = spawn(process.execPath, [main, ...args], {
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const url = await listeningUrl(child);
  const blobEndpoint = `${url}/${devAccount.name}`;
  const connectionString = [
    "DefaultEndpointsProtocol=http",
    `AccountName=${devAccount.name}`,
    `AccountKey=${devAccount.key}`,
    `BlobEndpoint=${blobEndpoint};`,
  ].join(";");
  return {
    blobEndpoint,
    connectionString,
    stop: () => stopChild(child),
    kill: () => child.kill("SIGKILL"),
  };
}

/** Waits for Azurite's "listens on http://…" line and answers that URL. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let output = "";
    const timer = setTimeout(() => fail("did not start in time"), startTimeoutMs);
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill("SIGKILL");
      reject(new Error(`azurite ${why}:\n${output}`));
    };
    const read = (chunk: Buffer) => {
      output += chunk;
      const match = /listens on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (!match?.[1]) return;
      clearTimeout(timer);
      child.off("exit", exited);
      resolve(match[1]);
    };
    const exited = (code: number | null) => fail(`exited with ${code}`);
    child.stdout?.on("data", read);
    child.stderr?.on("data", (chunk: Buffer) => {
      output += chunk;
    });
    child.once("exit", exited);
  });
}

/** Stops `child` (SIGTERM, then SIGKILL after 5 s) and waits for it to exit. */
export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5000);
  await exited;
  clearTimeout(timer);
}

/** A running Cosmos DB stand-in. */
export interface CosmosStandIn {
  /** `http://127.0.0.1:<port>`. */
  endpoint: string;
  /** Any base64 key works: the stand-in checks no signature. */
  key: string;
  /** Stops listening and drops every connection. */
  stop(): Promise<void>;
}

/**
 * Starts `@vercel/cosmosdb-server` over plain HTTP on a free loopback port, so that no
 * certificate needs trusting. It lists `https://…` as the account's region, so clients must
 * turn endpoint discovery off (`COSMOS_ENDPOINT_DISCOVERY=0`).
 */
export async function startCosmosStandIn(): Promise<CosmosStandIn> {
  // Transactional batches all or nothing, as on Cosmos DB (atomic-batches.ts).
  makeStandInBatchesAtomic();
  const server = createHttpServer({ keepAlive: true });
  // Node closes a kept-alive connection after 5 s idle by default; a client that sends on it
  // just then gets ECONNRESET, which the Cosmos SDK retries for reads but not for writes. The
  // SDK keeps its connections open, so the stand-in does too, as Cosmos DB's gateway does.
  server.keepAliveTimeout = 0;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    key: Buffer.from("cosmosdb-server key").toString("base64"),
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
