/**
 * The standalone server: the whole interface on the embedded stores (lowdb files and
 * attachment files under `DATA_DIR`), configured from the environment. `npm start` runs it.
 */
import { createFormService } from "formwork";
import { createFsBlobStore } from "formwork/adapters/fs";
import { createLowdbStore } from "formwork/adapters/lowdb";
import {
  readConfig,
  resolveAdminSecret,
  resolveCustomerTokenSecret,
  resolveSigningSecret,
  secureDataDir,
} from "./config.ts";
import { optionsFrom, serveUntilStopped } from "./serve.ts";

const config = readConfig(process.env);
await secureDataDir(config);
const service = createFormService({
  store: createLowdbStore({ directory: `${config.dataDir}/records` }),
  blobs: createFsBlobStore({
    directory: `${config.dataDir}/files`,
    storageUrl: `${config.publicUrl}/storage`,
    signingSecret: await resolveSigningSecret(config),
  }),
  adminSecret: await resolveAdminSecret(config),
  partners: { tokenSecret: await resolveCustomerTokenSecret(config) },
  ...optionsFrom(config),
});

const where = config.adminSecret ? "ADMIN_SECRET" : `${config.dataDir}/admin-secret`;
serveUntilStopped(service, config, `admin secret: ${where}`);
