/**
 * Formwork on Deno: `Deno.serve` takes `service.fetch` as it is. In a project whose
 * `package.json` lists `formwork` and `lowdb` (installed as the README says; Deno resolves
 * them from `node_modules`):
 *
 *     SIGNING_SECRET=… deno run --allow-net --allow-env --allow-read --allow-write=data server.ts
 *
 * Bun is the same with `Bun.serve({ port, fetch: (request, server) =>
 * service.fetch(request, { clientAddress: server.requestIP(request)?.address }) })`.
 */
import { createFormService } from "formwork";
import { createFsBlobStore } from "formwork/adapters/fs";
import { createLowdbStore } from "formwork/adapters/lowdb";

// The little of Deno's API used here, so that this file type-checks without Deno's types.
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(
    options: { port: number; hostname?: string },
    handler: (
      request: Request,
      info: { remoteAddr: { hostname: string } },
    ) => Response | Promise<Response>,
  ): { finished: Promise<void> };
};

const port = Number(Deno.env.get("PORT") ?? "8000");
const publicUrl = Deno.env.get("PUBLIC_URL") ?? `http://localhost:${port}`;
const signingSecret = Deno.env.get("SIGNING_SECRET");
if (!signingSecret) throw new Error("Set SIGNING_SECRET: it signs the links to uploaded files");

const service = createFormService({
  store: createLowdbStore({ directory: "data/records" }),
  blobs: createFsBlobStore({
    directory: "data/files",
    storageUrl: `${publicUrl}/storage`,
    signingSecret,
  }),
  adminSecret: Deno.env.get("ADMIN_SECRET"),
});

Deno.serve({ port, hostname: "127.0.0.1" }, (request, info) =>
  service.fetch(request, { clientAddress: info.remoteAddr.hostname }),
);
