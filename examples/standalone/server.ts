/**
 * The standalone server: the whole interface on the embedded stores (lowdb files and
 * attachment files under `DATA_DIR`), configured from the environment. `npm start` runs it.
 */
import { serve } from "@hono/node-server";
import { createFormService, createHttpWebhookSender } from "formwork";
import { createFsBlobStore } from "formwork/adapters/fs";
import { createLowdbStore } from "formwork/adapters/lowdb";
import {
  readConfig,
  resolveAdminSecret,
  resolveCustomerTokenSecret,
  resolveSigningSecret,
} from "./config.ts";
import { countryOf } from "./country.ts";

const config = readConfig(process.env);
const service = createFormService({
  store: createLowdbStore({ directory: `${config.dataDir}/records` }),
  blobs: createFsBlobStore({
    directory: `${config.dataDir}/files`,
    storageUrl: `${config.publicUrl}/storage`,
    signingSecret: await resolveSigningSecret(config),
  }),
  adminSecret: await resolveAdminSecret(config),
  partners: { tokenSecret: await resolveCustomerTokenSecret(config) },
  countryOf,
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
    const where = config.adminSecret ? "ADMIN_SECRET" : `${config.dataDir}/admin-secret`;
    console.log(
      `formwork listening on http://${config.host}:${info.port} (admin secret: ${where})`,
    );
  },
);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`formwork: ${signal}, finishing pending writes`);
  server.close();
  await service.close();
  process.exit(0);
}
process.on("SIGINT", () => void stop("SIGINT"));
process.on("SIGTERM", () => void stop("SIGTERM"));
