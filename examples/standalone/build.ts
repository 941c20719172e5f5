/**
 * Builds the standalone server that `npm start` runs: one esbuild bundle of
 * `examples/standalone/server.ts`, the library and its dependencies under
 * `build/standalone/`, so that Node reads a few files at start instead of resolving and
 * compiling several hundred modules. What the first request needs but the start does not
 * (the Node request bridge, with undici behind it) is split into chunks loaded by `import()`.
 * `npm start` builds it when it is missing, `npm test` always; run it again after changing
 * the code: `npm run build:server`.
 *
 * `npm pack` builds it into `dist/standalone/` (the folder given as argument) with the
 * `formwork` command (`cli.ts`) beside it, which the package's `bin` runs. The Azure SDKs and
 * stand-ins stay outside the bundle, loaded from the project only by the commands that use
 * them, as the library's optional peers are.
 */
import { rm } from "node:fs/promises";
import { resolve } from "node:path";
import { build } from "esbuild";

/** Where the bundle goes; `npm start` runs `server.js` in it. */
export const outdir = resolve(
  process.argv[2] ?? new URL("../../build/standalone/", import.meta.url).pathname,
);

await rm(outdir, { recursive: true, force: true });
await build({
  entryPoints: {
    server: new URL("server.ts", import.meta.url).pathname,
    cli: new URL("cli.ts", import.meta.url).pathname,
  },
  outdir,
  external: ["@azure/*", "@vercel/cosmosdb-server", "azurite"],
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20.19",
  // The library's own subpaths resolve to its TypeScript sources, as under tsx.
  conditions: ["formwork-source"],
  sourcemap: true,
  // The maps name TypeScript files and lines (crash-report.ts); the sources stay out of them.
  sourcesContent: false,
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: "linked",
  logLevel: "warning",
  // CommonJS dependencies (busboy, pino, proper-lockfile) call `require` for Node's modules.
  banner: {
    js: 'import { createRequire as __formworkRequire } from "node:module"; const require = __formworkRequire(import.meta.url);',
  },
});
