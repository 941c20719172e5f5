/**
 * The anchor of `versus-anchor.bench.ts` (docs/design.md §22): the server a developer would
 * write instead of using Formwork, in `bench/anchor/` with its own package.json and lockfile
 * (Fastify, ajv, better-sqlite3). better-sqlite3 is a native module, so the project's own
 * `npm ci` never installs it: the bench installs the folder the first time it runs.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { formBody } from "./seeded-form.ts";
import { root } from "./standalone-process.ts";

/** The anchor's server script, relative to the project folder (for `startServer`). */
export const anchorScript = "bench/anchor/server.js";

/** The anchor's floor: Fastify doing only the JSON of S2 and S5 (`bench/anchor/bare.js`). */
export const bareAnchorScript = "bench/anchor/bare.js";

const folder = join(root, "bench/anchor");

/** Installs the anchor's dependencies from its lockfile unless they are there. */
export function installAnchor(): void {
  if (existsSync(join(folder, "node_modules"))) return;
  console.log("installing the anchor (npm ci in bench/anchor)…");
  execFileSync("npm", ["ci", "--no-audit", "--no-fund"], { cwd: folder, stdio: "inherit" });
}

/** An anchor database seeded as `seedForm` seeds a lowdb store. */
export interface SeededAnchor {
  path: string;
  formId: string;
  tokens: { TokenId: string; TokenSecret: string };
}

const run = promisify(execFile);

/**
 * Creates the anchor's database at `path` with the bench account and form, and `count`
 * submissions one a millisecond from `firstMs` (as `seedForm` writes them).
 */
export async function seedAnchor(path: string, count = 0, firstMs = Date.now()) {
  const env = {
    ...process.env,
    ANCHOR_DB: path,
    ANCHOR_FORM: JSON.stringify(formBody),
    ANCHOR_COUNT: String(count),
    ANCHOR_FIRST_MS: String(firstMs),
  };
  const { stdout } = await run(process.execPath, [join(folder, "seed.js")], { env });
  return { path, ...(JSON.parse(stdout) as Omit<SeededAnchor, "path">) };
}
