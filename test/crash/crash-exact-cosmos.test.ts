/**
 * The crash promises on the production adapters: three instances of `examples/azure/server.ts`
 * on one Cosmos DB stand-in (a process of its own, test/emulators/cosmos-process.ts) and one
 * Azurite account, under load round-robin, each round one of them killed -9 and started
 * again. Then every promise the embedded store keeps must hold here too (crash-records.ts),
 * read straight from the stand-in and Azurite once the recovery had up to 60 s.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { CosmosClient } from "@azure/cosmos";
import { BlobServiceClient } from "@azure/storage-blob";
import { createCosmosStore } from "../../adapters/cosmos/index.ts";
import { startServer } from "../../bench/standalone-process.ts";
import { startAzurite } from "../emulators/azurite.ts";
import { startCosmosProcess } from "../emulators/cosmos-process.ts";
import { adminSecret } from "../standalone/crash-fixture.ts";
import { bundleAzureServer } from "./azure-bundle.ts";
import { promisesHold, readSnapshot, type Snapshot } from "./crash-records.ts";
import { crashSettings, pollUntil, runScenario } from "./crash-scenario.ts";

const database = "crash";
const container = "formwork";

describe("exact crash promises on Cosmos DB and Blob Storage, three instances", {
  timeout: 240_000,
}, () => {
  it("keeps every acknowledged write, counters equal to records, every webhook sent", async (t) => {
    const [cosmos, azurite, server] = await Promise.all([
      startCosmosProcess(),
      startAzurite(),
      bundleAzureServer(),
    ]);
    after(() => cosmos.stop());
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-crash-cosmos-"));
    after(() => rm(dataDir, { recursive: true, force: true }));
    // The test's own view of the records, bypassing the servers. Its first read creates the
    // database and container, so that the three instances do not race to.
    const store = createCosmosStore({
      endpoint: cosmos.endpoint,
      key: cosmos.key,
      databaseId: database,
      containerId: container,
      endpointDiscovery: false,
      createIfMissing: true,
      // It only reads: finishing what a killed instance left is the other instances' job.
      recoveryIntervalMs: 0,
    });
    after(() => store.close());
    await store.get("service_state", "crash", "crash");
    // What the Cosmos store's crash-exact writes left unfinished (adapters/cosmos/intents.ts),
    // for the summary: items whose `coll` is `~intent` or `~marker`.
    const client = new CosmosClient({
      endpoint: cosmos.endpoint,
      key: cosmos.key,
      connectionPolicy: { enableEndpointDiscovery: false },
    });
    after(() => client.dispose());
    const intentsLeft = async () => {
      const items = client.database(database).container(container).items;
      const counts = new Map<string, number>();
      for (const coll of ["~intent", "~marker"]) {
        const query = {
          query: "SELECT * FROM c WHERE c.coll = @coll",
          parameters: [{ name: "@coll", value: coll }],
        };
        const { resources } = await items.query<Record<string, unknown>>(query).fetchAll();
        for (const item of resources) {
          const kind = `${coll}${item.prepared ? " prepared" : ""}${item.state ? ` ${item.state}` : ""}`;
          counts.set(kind, (counts.get(kind) ?? 0) + 1);
        }
      }
      return [...counts].map(([kind, count]) => `${count} ${kind}`).join(", ") || "none";
    };
    const blobService = BlobServiceClient.fromConnectionString(azurite.connectionString);
    const blobsOf = async (formId: string) => {
      const sizes = new Map<string, number>();
      const listed = blobService.getContainerClient(formId);
      if (!(await listed.exists())) return sizes;
      for await (const blob of listed.listBlobsFlat()) {
        sizes.set(blob.name, blob.properties.contentLength ?? -1);
      }
      return sizes;
    };
    await runScenario(t, {
      name: "cosmos+blob, 3 instances",
      rounds: crashSettings.rounds,
      loadMs: 2000,
      clients: 18,
      async instances(receivers) {
        const env = {
          PORT: "0",
          DATA_DIR: dataDir,
          ADMIN_SECRET: adminSecret,
          CUSTOMER_TOKEN_SECRET: "the crash test's customer token secret",
          COSMOS_ENDPOINT: cosmos.endpoint,
          COSMOS_KEY: cosmos.key,
          COSMOS_DATABASE: database,
          COSMOS_CONTAINER: container,
          COSMOS_ENDPOINT_DISCOVERY: "0",
          AZURE_STORAGE_CONNECTION_STRING: azurite.connectionString,
          ALLOW_PRIVATE_WEBHOOKS: "1",
          SMTP_URL: receivers.inbox.url,
          MAIL_FROM: "forms@example.com",
          WEBHOOK_LEASE_MS: "2000",
          WEBHOOK_RETRY_BASE_MS: "100",
          COSMOS_RECOVERY_INTERVAL_MS: "1000",
          COSMOS_INTENT_GRACE_MS: "2000",
          RATE_LIMIT_PUBLIC_PER_MINUTE: "0",
          RATE_LIMIT_CREDENTIAL_PER_MINUTE: "0",
          LOG_LEVEL: "error",
        };
        return { count: 3, start: () => startServer(env, server) };
      },
      async recover({ cluster, forms, customerId, measure }) {
        let snapshot: Snapshot | undefined;
        // The other instances live on: their recovery sweeps and webhook workers finish the work.
        await pollUntil(async () => {
          snapshot = await readSnapshot(store, forms, customerId, blobsOf);
          return promisesHold(measure(snapshot));
        }, crashSettings.recoveryMs);
        t.diagnostic(`cosmos intents and markers left: ${await intentsLeft()}`);
        await cluster.stop();
        return snapshot as Snapshot;
      },
    });
  });
});
