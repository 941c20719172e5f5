/**
 * Formwork inside an Express app, under `/forms`, through the fetch-to-Node bridge of
 * `@hono/node-server`. `server.ts` runs it; the mount tests start it on a free port.
 */
import { getRequestListener } from "@hono/node-server";
import express from "express";
import { createFormService } from "formwork";
import { createFsBlobStore } from "formwork/adapters/fs";
import { createLowdbStore } from "formwork/adapters/lowdb";

/** What the example needs to know about its deployment. */
export interface MountOptions {
  /** The address clients reach the Express app at, e.g. `http://localhost:3000`. */
  publicUrl: string;
  /** Where the records and the attachment files live. */
  dataDir: string;
  /** Signs download links; keep it stable so links survive a restart. */
  signingSecret: string;
  /** Enables the admin API under `/forms/api/admin`. */
  adminSecret?: string;
}

/** An Express app with its own routes, and formwork's whole interface under `/forms`. */
export function createApp(options: MountOptions) {
  const service = createFormService({
    basePath: "/forms",
    store: createLowdbStore({ directory: `${options.dataDir}/records` }),
    blobs: createFsBlobStore({
      directory: `${options.dataDir}/files`,
      storageUrl: `${options.publicUrl}/forms/storage`, // under the base path: served below
      signingSecret: options.signingSecret,
    }),
    adminSecret: options.adminSecret,
  });
  // `body`: uploads read Node's request directly, not through a web stream.
  const formwork = getRequestListener((request, { incoming }) =>
    service.fetch(request, { clientAddress: incoming.socket.remoteAddress, body: incoming }),
  );

  const app = express();
  // A route, not `app.use("/forms", …)`: `use` strips `/forms` from `req.url`, which the
  // bridge builds the request from. It comes before any body parser, which would consume
  // the bodies formwork reads itself.
  app.all("/forms/*splat", formwork);
  app.use(express.json());
  app.get("/", (_request, response) => {
    response.send("My app. Forms live under /forms, described at /forms/openapi.json.");
  });
  return { app, service };
}
