/**
 * `examples/azure/server.ts` bundled by esbuild, as `npm run build:server` bundles the
 * standalone server: a test that restarts the Azure server after every kill -9 then waits for
 * Node to read one file rather than for tsx to resolve and compile several hundred modules
 * (on two busy cores, about 4 s against 12 s and more per start). The bundle is made from the
 * sources at test time, so it is what `npm run start:azure` would run from this checkout.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { build } from "esbuild";

/** Bundles the Azure server into a temp folder, removed after the test file. @returns its path */
export async function bundleAzureServer(): Promise<string> {
  const outdir = await mkdtemp(join(tmpdir(), "formwork-azure-server-"));
  after(() => rm(outdir, { recursive: true, force: true }));
  await build({
    entryPoints: {
      "azure-server": new URL("../../examples/azure/server.ts", import.meta.url).pathname,
    },
    outdir,
    bundle: true,
    splitting: true,
    platform: "node",
    format: "esm",
    target: "node20.19",
    // The library's own subpaths resolve to its TypeScript sources, as under tsx.
    conditions: ["formwork-source"],
    logLevel: "warning",
    // CommonJS dependencies call `require` for Node's modules.
    banner: {
      js: 'import { createRequire as __formworkRequire } from "node:module"; const require = __formworkRequire(import.meta.url);',
    },
  });
  return join(outdir, "azure-server.js");
}
