import { mkdtemp, rm } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "@hono/node-server";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService, type FormService, type FormServiceOptions } from "../../src/index.ts";
import { conformingFetch, mountedAt } from "../helpers.ts";
import type { Call } from "./fixture.ts";

/**
 * The service over the memory store and the fs blob store in a fresh folder, on a real HTTP
 * server on a free loopback port, with `{storage_url}` under that server. `call` sends to the
 * interface under `options.basePath`.
 */
export async function startServer(options: Partial<FormServiceOptions> = {}) {
  const directory = await mkdtemp(join(tmpdir(), "formwork-hosted-"));
  let service: FormService | undefined;
  const { server, port } = await new Promise<{ server: ReturnType<typeof serve>; port: number }>(
    (resolve) => {
      const server = serve(
        {
          hostname: "127.0.0.1",
          port: 0,
          fetch: (request, env) => {
            if (!service) return new Response("starting", { status: 503 });
            // Every answer the browser gets is checked against the OpenAPI document too.
            return conformingFetch(service)(request, {
              clientAddress: env.incoming.socket.remoteAddress,
            });
          },
        },
        (info: AddressInfo) => resolve({ server, port: info.port }),
      );
    },
  );
  const base = `http://127.0.0.1:${port}`;
  service = createFormService({
    store: createMemoryStore(),
    blobs: createFsBlobStore({
      directory,
      storageUrl: `${base}${options.basePath ?? ""}/storage`,
      signingSecret: "hosted page test secret",
    }),
    sweepIntervalMs: 0,
    webhookPollMs: 0,
    ...options,
  });
  mountedAt(service, options.basePath ?? "");
  const running = service;
  const prefix = `${base}${options.basePath ?? ""}`;
  const call: Call = async (method, path, options = {}) => {
    const headers = new Headers();
    if (options.as) {
      headers.set("TokenId", options.as.token_id);
      headers.set("TokenSecret", options.as.token_secret);
    }
    if (options.body !== undefined) headers.set("content-type", "application/json");
    const body = options.body === undefined ? undefined : JSON.stringify(options.body);
    const response = await fetch(`${prefix}${path}`, {
      method,
      headers,
      body,
    });
    return { status: response.status, body: await response.json() };
  };
  const close = async () => {
    await new Promise((resolve) => server.close(resolve));
    await running.close();
    await rm(directory, { recursive: true, force: true });
  };
  return { base, service: running, call, close };
}
