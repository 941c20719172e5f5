/**
 * The production server on Azure: records in Cosmos DB, attachment files in Blob Storage
 * (downloads go straight to Azure through SAS links), configured from the environment (see
 * `config.ts`). `npm run start:azure` runs it.
 */
import { createFormService } from "formwork";
import { createAzureBlobStore } from "formwork/adapters/azure-blob";
import { createCosmosStore } from "formwork/adapters/cosmos";
import { resolveAdminSecret, resolveCustomerTokenSecret } from "../standalone/config.ts";
import { settingsOrExit } from "../standalone/environment.ts";
import { limitHeapGrowth } from "../standalone/heap-growth.ts";
import { paymentsFrom } from "../standalone/payments.ts";
import { optionsFrom, serveUntilStopped } from "../standalone/serve.ts";
import { cosmosOptionsOf, readAzureConfig } from "./config.ts";

const config = settingsOrExit(() => readAzureConfig(process.env));
limitHeapGrowth(config.heapGrowingPercent);
const options = optionsFrom(config);
const service = createFormService({
  store: createCosmosStore({
    ...cosmosOptionsOf(config),
    recoveryIntervalMs: config.cosmosRecoveryIntervalMs,
    intentGraceMs: config.cosmosIntentGraceMs,
    onRecoveryError: (error) =>
      options.logger.error(
        { name: (error as Error)?.name, message: (error as Error)?.message },
        "cosmos recovery run failed",
      ),
  }),
  blobs: createAzureBlobStore({ connectionString: config.storageConnectionString }),
  adminSecret: await resolveAdminSecret(config),
  partners: {
    tokenSecret: config.customerTokenSecret ?? (await resolveCustomerTokenSecret(config)),
  },
  trustProxy: config.trustProxy,
  payments: await paymentsFrom(config),
  ...options,
});

serveUntilStopped(service, config, `Cosmos DB ${config.cosmosDatabase}/${config.cosmosContainer}`);
