/**
 * The production server on Azure: records in Cosmos DB, attachment files in Blob Storage
 * (downloads go straight to Azure through SAS links), configured from the environment (see
 * `config.ts`). `npm run start:azure` runs it.
 */
import { serve } from "@hono/node-server";
import { createFormService, createHttpWebhookSender } from "formwork";
import { createAzureBlobStore } from "formwork/adapters/azure-blob";
import { createCosmosStore } from "formwork/adapters/cosmos";
import { resolveAdminSecret, resolveCustomerTokenSecret } from "../standalone/config.ts";
import { countryOf } from "../standalone/country.ts";
import { readAzureConfig } from "./config.ts";

const config = readAzureConfig(process.env);
const service = createFormService({
  store: createCosmosStore({
    endpoint: config.cosmosEndpoint,
    key: config.cosmosKey,
    databaseId: config.cosmosDatabase,
    containerId: config.cosmosContainer,
    createIfMissing: true,
  }),
  blobs: createAzureBlobStore({ connectionString: config.storageConnectionString }),
  adminSecret: await resolveAdminSecret(config),
  partners: {
    tokenSecret: config.customerTokenSecret ?? (await resolveCustomerTokenSecret(config)),
  },
  countryOf,
  trustProxy: config.trustProxy,
  limits: { uploadBytes: config.maxUploadBytes },
  allowPrivateWebhookDestinations: config.allowPrivateWebhooks,
  webhookSender: createHttpWebhookSender({
    allowPrivateDestinations: config.allowPrivateWebhooks,
    retryBaseMs: config.webhookRetryBaseMs,
    maxAttempts: config.webhookMaxAttempts,
  }),
});

const server = serve(
  {
    hostname: config.host,
    port: config.port,
    fetch: (request, env) =>
      service.fetch(request, { clientAddress: env.incoming.socket.remoteAddress }),
  },
  (info) => {
    console.log(
      `formwork listening on http://${config.host}:${info.port} (Cosmos DB ${config.cosmosDatabase}/${config.cosmosContainer})`,
    );
  },
);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`formwork: ${signal}, stopping`);
  server.close();
  await service.close();
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
