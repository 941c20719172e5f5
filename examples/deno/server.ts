/**
 * Formwork on Deno: `Deno.serve` takes `service.fetch` as it is. Here, `npm run example:deno`
 * runs it with the Deno that `npm ci` installs. In a project of your own whose `package.json`
 * lists `formwork` and `lowdb` (installed as the README says; Deno resolves them from
 * `node_modules`):
 *
 *     SIGNING_SECRET=… deno run --allow-net --allow-env --allow-read --allow-write=data server.ts
 *
 * Bun is the same with `Bun.serve({ port, fetch: (request, server) =>
 * service.fetch(request, { clientAddress: server.requestIP(request)?.address }) })`.
 */
import { createFormService } from "formwork";
import { createFsBlobStore } from "formwork/adapters/fs";
import { createLowdbStore } from "formwork/adapters/lowdb";
import { startNotes } from "../start-notes.ts";

// The little of Deno's API used here, so that this file type-checks without Deno's types.
declare const Deno: {
  env: { get(name: string): string | undefined };
  addSignalListener(signal: "SIGINT" | "SIGTERM", handler: () => void): void;
  exit(code: number): never;
  serve(
    options: { port: number; hostname?: string; onListen?(address: { port: number }): void },
    handler: (
      request: Request,
      info: { remoteAddr: { hostname: string } },
    ) => Response | Promise<Response>,
  ): { finished: Promise<void>; shutdown(): Promise<void> };
};

const port = Number(Deno.env.get("PORT") ?? "8000");
const publicUrl = Deno.env.get("PUBLIC_URL") ?? `http://localhost:${port}`;
const dataDir = Deno.env.get("DATA_DIR") ?? "data/deno";
// Without SIGNING_SECRET, download links die with the process.
const signingSecret =
  Deno.env.get("SIGNING_SECRET") ??
  btoa(String.fromCharCode(...crypto.getRandomValues(new Uint8Array(32))));

const service = createFormService({
  store: createLowdbStore({ directory: `${dataDir}/records` }),
  blobs: createFsBlobStore({
    directory: `${dataDir}/files`,
    storageUrl: `${publicUrl}/storage`,
    signingSecret,
  }),
  adminSecret: Deno.env.get("ADMIN_SECRET"),
});

// Deno prints `Listening on http://127.0.0.1:<port>/` once it serves, then the notes.
const server = Deno.serve(
  {
    port,
    hostname: "127.0.0.1",
    onListen: ({ port }) => {
      console.log(`Listening on http://127.0.0.1:${port}/`);
      const url = `http://127.0.0.1:${port}`;
      for (const line of startNotes({ dataDir, url, adminApi: !!Deno.env.get("ADMIN_SECRET") })) {
        console.log(line);
      }
    },
  },
  (request, info) => service.fetch(request, { clientAddress: info.remoteAddr.hostname }),
);
const stop = async () => {
  await server.shutdown(); // finishes the requests in flight
  await service.close();
  Deno.exit(0);
};
Deno.addSignalListener("SIGINT", () => void stop());
Deno.addSignalListener("SIGTERM", () => void stop());
