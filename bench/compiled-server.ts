/**
 * Compiles a bench server script into one JavaScript bundle, as `npm start`'s server is
 * built (examples/standalone/build.ts), so that a bench measures the compiled code users
 * run rather than code transformed by tsx as it loads (tsx wraps every function it names,
 * and a request path creates many). The bare handler and the service are compiled alike.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { root } from "./standalone-process.ts";

/** A compiled script and how to remove it. */
export interface CompiledScript {
  path: string;
  remove(): Promise<void>;
}

/** Bundles `script` (relative to the project root) into a temporary `.js` file. */
export async function compileScript(script: string): Promise<CompiledScript> {
  const directory = await mkdtemp(join(tmpdir(), "formwork-bench-build-"));
  const path = join(directory, "server.js");
  await build({
    entryPoints: [join(root, script)],
    outfile: path,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20.19",
    conditions: ["formwork-source"],
    minifySyntax: true,
    logLevel: "warning",
    // CommonJS dependencies call `require` for Node's modules.
    banner: {
      js: 'import { createRequire as __formworkRequire } from "node:module"; const require = __formworkRequire(import.meta.url);',
    },
  });
  return { path, remove: () => rm(directory, { recursive: true, force: true }) };
}
