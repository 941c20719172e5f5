/**
 * `npm run dev:azure`: the Azure server (`server.ts`) on local stand-ins, so that the
 * production adapters can be tried with one command and no Azure account. The Cosmos DB
 * stand-in (`@vercel/cosmosdb-server`, over plain HTTP) runs in this process, Azurite's blob
 * service in a child; both keep their data in memory, so records and files last as long as
 * this process. `DATA_DIR` (default `./data`) holds only the admin secret and the customer
 * token key, as for `npm start`, so `npm run admin` works unchanged. SIGINT or SIGTERM stops
 * the server as usual, and Azurite with it.
 */
import { startAzurite, startCosmosStandIn } from "./emulators.ts";

// Until the server takes the signals over, a stop is held back: a process ended by a signal
// it does not handle never emits "exit", which is where Azurite is killed.
let stopRequested = false;
const holdStop = () => {
  stopRequested = true;
};
process.on("SIGINT", holdStop);
process.on("SIGTERM", holdStop);

const cosmos = await startCosmosStandIn();
const azurite = await startAzurite();
process.on("exit", () => azurite.kill());
if (stopRequested) process.exit(1);
console.log(`cosmos stand-in at ${cosmos.endpoint} (in memory)`);
console.log(`azurite blob service at ${azurite.blobEndpoint} (in memory)`);

Object.assign(process.env, {
  COSMOS_ENDPOINT: cosmos.endpoint,
  COSMOS_KEY: cosmos.key,
  COSMOS_DATABASE: process.env.COSMOS_DATABASE || "formwork",
  // The stand-in lists an https:// region it does not serve; talk to the endpoint itself.
  COSMOS_ENDPOINT_DISCOVERY: "0",
  AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
});
await import("./server.ts");
process.off("SIGINT", holdStop);
process.off("SIGTERM", holdStop);
if (stopRequested) process.kill(process.pid, "SIGTERM");
