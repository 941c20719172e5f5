/**
 * A child process for cosmos-crash.test.ts: writes one `Store.batch` (the JSON of argv[2]) to
 * the Cosmos DB stand-in named by the environment, with no recovery of its own, and prints
 * "written" once it returns. The test kills it (SIGKILL) in the middle of the batch.
 */
import { Agent } from "node:https";
import { createCosmosStore } from "../../adapters/cosmos/index.ts";
import type { BatchOp } from "../../src/ports/store.ts";

const ops = JSON.parse(process.argv[2] as string) as BatchOp[];
const store = createCosmosStore({
  endpoint: process.env.COSMOS_ENDPOINT,
  key: process.env.COSMOS_KEY,
  databaseId: process.env.COSMOS_DATABASE,
  containerId: process.env.COSMOS_CONTAINER,
  endpointDiscovery: false,
  // The stand-in's certificate is self-signed; loopback only.
  agent: new Agent({ rejectUnauthorized: false, keepAlive: true }),
  recoveryIntervalMs: 0,
});
await store.batch(ops);
console.log("written");
await store.close();
