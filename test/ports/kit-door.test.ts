/**
 * The built-in adapters reach Formwork only through the contracts, `formwork/ports`, and the
 * kit, `formwork/ports/kit`, exactly as a third party would: besides them, their own files,
 * Node's modules and the packages the library lists (their SDKs). Nothing of `src/` by path,
 * no other `formwork/…` subpath.
 */
import assert from "node:assert/strict";
import { readdir, readFile } from "node:fs/promises";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";

const root = resolve(import.meta.dirname, "../..");
const pkg = JSON.parse(await readFile(join(root, "package.json"), "utf8"));
const packages = new Set([
  ...Object.keys(pkg.dependencies ?? {}),
  ...Object.keys(pkg.peerDependencies ?? {}),
]);

/** The subpaths of Formwork that adapters may import. */
const doors = new Set(["formwork/ports", "formwork/ports/kit"]);

/** Every module specifier a source imports or re-exports, statically or by `import()`. */
function specifiers(source: string): string[] {
  const found = source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)["']([^"']+)["']/g);
  return [...found].map((match) => match[1] as string);
}

/** What is wrong with `specifier` in a file of adapter folder `folder`, or `null`. */
function offence(file: string, folder: string, specifier: string): string | null {
  if (doors.has(specifier) || specifier.startsWith("node:")) return null;
  if (specifier.startsWith(".")) {
    const target = resolve(dirname(file), specifier);
    return relative(folder, target).startsWith("..") ? "reaches outside its adapter" : null;
  }
  const name = specifier.startsWith("@")
    ? specifier.split("/").slice(0, 2).join("/")
    : (specifier.split("/")[0] as string);
  return name !== "formwork" && packages.has(name) ? null : "is not the kit or a dependency";
}

/** Every offending import of the adapters' sources, as `file: specifier (why)`. */
async function offences(): Promise<string[]> {
  const found: string[] = [];
  const adapters = join(root, "adapters");
  for (const entry of await readdir(adapters, { recursive: true })) {
    if (!entry.endsWith(".ts")) continue;
    const file = join(adapters, entry);
    const folder = join(adapters, entry.split(/[/\\]/)[0] as string);
    for (const specifier of specifiers(await readFile(file, "utf8"))) {
      const why = offence(file, folder, specifier);
      if (why) found.push(`${entry}: ${specifier} (${why})`);
    }
  }
  return found;
}

describe("the contracts and the kit are the adapters' only doors", () => {
  it("holds for every built-in adapter", async () => {
    assert.deepEqual(await offences(), []);
  });

  it("would catch an import of the service's insides or of another adapter", () => {
    const file = join(root, "adapters", "fs", "download.ts");
    const folder = join(root, "adapters", "fs");
    const source = [
      'import { errorEnvelope } from "../../src/kernel/errors.ts";',
      'import type { Store } from "../memory/store.ts";',
      'export { ServiceError } from "formwork";',
      'const lazy = await import("formwork/testing");',
      'import type { Store } from "formwork/ports";',
      'import { queryAll } from "formwork/ports/kit";',
      'import { fsBlobError } from "./errors.ts";',
      'import { join } from "node:path";',
      'import { BlobServiceClient } from "@azure/storage-blob";',
    ].join("\n");
    const flagged = specifiers(source).filter((s) => offence(file, folder, s) !== null);
    assert.deepEqual(flagged, [
      "../../src/kernel/errors.ts",
      "../memory/store.ts",
      "formwork",
      "formwork/testing",
    ]);
  });
});
