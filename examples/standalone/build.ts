/**
 * Builds the standalone server that `npm start` runs: one esbuild bundle of
 * `examples/standalone/server.ts`, the library and its dependencies under
 * `build/standalone/`, so that Node reads a few files at start instead of resolving and
 * compiling several hundred modules. What the first request needs but the start does not
 * (the Node request bridge, with undici behind it) is split into chunks loaded by `import()`.
 * `npm ci` runs it through the `prepare` script; run it again after changing the code:
 * `npm run build:server`.
 */
import { rm } from "node:fs/promises";
import { build } from "esbuild";

/** Where the bundle goes; `npm start` runs `server.js` in it. */
export const outdir = new URL("../../build/standalone/", import.meta.url).pathname;

await rm(new URL("../../build/", import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: { server: new URL("server.ts", import.meta.url).pathname },
  outdir,
  bundle: true,
  splitting: true,
  platform: "node",
  format: "esm",
  target: "node20.19",
  // The library's own subpaths resolve to its TypeScript sources, as under tsx.
  conditions: ["formwork-source"],
  sourcemap: true,
  minifySyntax: true,
  minifyWhitespace: true,
  legalComments: "linked",
  logLevel: "warning",
  // CommonJS dependencies (busboy, pino, proper-lockfile) call `require` for Node's modules.
  banner: {
    js: 'import { createRequire as __formworkRequire } from "node:module"; const require = __formworkRequire(import.meta.url);',
  },
});
