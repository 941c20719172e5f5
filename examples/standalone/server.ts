/**
 * The standalone server: the whole interface on the embedded stores (lowdb files and
 * attachment files under `DATA_DIR`), configured from the environment. `npm start` runs it.
 */
import { createFormService } from "formwork";
import { createFsBlobStore } from "formwork/adapters/fs";
import { backupRoute } from "./backup-route.ts";
import { removeStaleStaging } from "./backup-staging.ts";
import {
  readConfig,
  resolveAdminSecret,
  resolveCustomerTokenSecret,
  resolveSigningSecret,
  secureDataDir,
} from "./config.ts";
import { reportCrashes } from "./crash-report.ts";
import { openDataStore } from "./data-store.ts";
import { settingsOrExit } from "./environment.ts";
import { limitHeapGrowth } from "./heap-growth.ts";
import { paymentsFrom } from "./payments.ts";
import { optionsFrom, serveUntilStopped } from "./serve.ts";

reportCrashes();
const config = settingsOrExit(() => readConfig(process.env));
limitHeapGrowth(config.heapGrowingPercent);
await secureDataDir(config);
// Opening now, not on the first request: a second server on the same DATA_DIR stops here.
const store = await openDataStore(config.dataDir);
if (!store) process.exit(1);
// Backups a crash cut short; the lock is ours now, so no other process is making one.
await removeStaleStaging(config.dataDir);
const service = createFormService({
  store,
  blobs: createFsBlobStore({
    directory: `${config.dataDir}/files`,
    storageUrl: `${config.publicUrl}/storage`,
    signingSecret: await resolveSigningSecret(config),
  }),
  adminSecret: await resolveAdminSecret(config),
  partners: { tokenSecret: await resolveCustomerTokenSecret(config) },
  payments: await paymentsFrom(config),
  ...optionsFrom(config),
});

const where = config.adminSecret ? "ADMIN_SECRET" : `${config.dataDir}/admin-secret`;
const backups = backupRoute({
  dataDir: config.dataDir,
  store,
  service,
  warn: (message) => console.error(`formwork: ${message}`),
});
// A stop does not wait for a backup being sent (at its pace that may take minutes).
for (const signal of ["SIGINT", "SIGTERM"]) process.on(signal, backups.stop);
serveUntilStopped(service, config, `admin secret: ${where}`, backups.handle);
