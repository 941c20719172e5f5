/**
 * Formwork inside a Hono app, under `/forms`. `server.ts` runs it on Node; on Deno, Bun or
 * Workers export `app` instead (and take the client address from that runtime).
 */
import { getConnInfo } from "@hono/node-server/conninfo";
import { createFormService } from "formwork";
import { createFsBlobStore } from "formwork/adapters/fs";
import { createLowdbStore } from "formwork/adapters/lowdb";
import { Hono } from "hono";
import { mount } from "hono/mount";

/** What the example needs to know about its deployment. */
export interface MountOptions {
  /** The address clients reach the Hono app at, e.g. `http://localhost:3000`. */
  publicUrl: string;
  /** Where the records and the attachment files live. */
  dataDir: string;
  /** Signs download links; keep it stable so links survive a restart. */
  signingSecret: string;
  /** Enables the admin API under `/forms/api/admin`. */
  adminSecret?: string;
}

/** A Hono app with its own routes, and formwork's whole interface under `/forms`. */
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

  const app = new Hono();
  app.get("/", (c) => c.text("My app. Forms live under /forms, described at /forms/openapi.json."));
  app.all(
    "/forms/*",
    mount(service.fetch, {
      // By default `mount` strips `/forms`; formwork routes on the whole path.
      replaceRequest: false,
      optionHandler: (c) => ({ clientAddress: getConnInfo(c).remote.address }),
    }),
  );
  return { app, service };
}
