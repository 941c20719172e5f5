/**
 * The production server on Azure: records in Cosmos DB, attachment files in Blob Storage
 * (downloads go straight to Azure through SAS links), configured from the environment (see
 * `config.ts`). `npm run start:azure` runs it.
 */
import { createFormService } from "formwork";
import { createAzureBlobStore } from "formwork/adapters/azure-blob";
import { createCosmosStore } from "formwork/adapters/cosmos";
import { resolveAdminSecret, resolveCustomerTokenSecret } from "../standalone/config.ts";
import { optionsFrom, serveUntilStopped } from "../standalone/serve.ts";
import { readAzureConfig } from "./config.ts";

const config = readAzureConfig(process.env);
const service = createFormService({
  store: createCosmosStore({
    endpoint: config.cosmosEndpoint,
    key: config.cosmosKey,
    databaseId: config.cosmosDatabase,
    containerId: config.cosmosContainer,
    endpointDiscovery: config.cosmosEndpointDiscovery,
    createIfMissing: true,
  }),
  blobs: createAzureBlobStore({ connectionString: config.storageConnectionString }),
  adminSecret: await resolveAdminSecret(config),
  partners: {
    tokenSecret: config.customerTokenSecret ?? (await resolveCustomerTokenSecret(config)),
  },
  trustProxy: config.trustProxy,
  ...optionsFrom(config),
});

serveUntilStopped(service, config, `Cosmos DB ${config.cosmosDatabase}/${config.cosmosContainer}`);
