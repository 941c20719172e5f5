/**
 * The standalone server: the whole interface on the embedded stores (lowdb files under
 * `DATA_DIR`), configured from the environment. `npm start` runs it.
 */
import { serve } from "@hono/node-server";
import { createFormService } from "formwork";
import { createLowdbStore } from "formwork/adapters/lowdb";
import { readConfig, resolveAdminSecret } from "./config.ts";

const config = readConfig(process.env);
const adminSecret = await resolveAdminSecret(config);
const service = createFormService({
  store: createLowdbStore({ directory: `${config.dataDir}/records` }),
  adminSecret,
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
