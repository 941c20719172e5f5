/**
 * Reads the imports of TypeScript sources and checks them against a layer table
 * (layers.ts). Kept apart from the test so that its own test can feed it a made-up tree.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import type { Layer } from "./layers.ts";

/** One import: a file and the project file it names, both relative to the root. */
export interface ImportEdge {
  from: string;
  to: string;
  line: number;
}

/** An import the table does not allow, or a file no layer holds. */
export interface Violation {
  edge: ImportEdge;
  problem: string;
}

// Static `import … from`, `export … from`, side-effect `import "…"` and `import("…")`.
const importPattern = /(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)["']([^"']+)["']/gm;

/** The `.ts` files under `dirs` (relative to `root`), as root-relative paths with `/`. */
export function sourceFiles(root: string, dirs: string[]): string[] {
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
      const relative = `${dir}/${entry.name}`;
      if (entry.isDirectory()) walk(relative);
      else if (entry.name.endsWith(".ts")) files.push(relative);
    }
  };
  for (const dir of dirs) if (existsSync(path.join(root, dir))) walk(dir);
  return files.sort();
}

/** One import as written: the importing file, the specifier and its line. */
export interface ImportSpecifier {
  from: string;
  specifier: string;
  line: number;
}

/** Every import `files` make, as written: of project files, packages and Node's modules. */
export function readSpecifiers(root: string, files: string[]): ImportSpecifier[] {
  const found: ImportSpecifier[] = [];
  for (const from of files) {
    const text = readFileSync(path.join(root, from), "utf8");
    for (const match of text.matchAll(importPattern)) {
      const line = text.slice(0, match.index).split("\n").length;
      found.push({ from, specifier: match[1] as string, line });
    }
  }
  return found;
}

/**
 * Every import of a project file made by `files`: relative specifiers, and the package's own
 * entry points (`formwork`, `formwork/ports`, …) through package.json's `exports`. Imports of
 * other packages and of Node's modules are not edges of the table.
 */
export function readImports(root: string, files: string[]): ImportEdge[] {
  const selfExports = packageEntries(root);
  const edges: ImportEdge[] = [];
  for (const { from, specifier, line } of readSpecifiers(root, files)) {
    const to = specifier.startsWith(".")
      ? path.posix.normalize(path.posix.join(path.posix.dirname(from), specifier))
      : selfExports.get(specifier);
    if (to) edges.push({ from, to, line });
  }
  return edges;
}

/** The package's own entry points: `formwork/ports` → `src/ports/index.ts`, … */
export function packageEntries(root: string): Map<string, string> {
  const file = path.join(root, "package.json");
  const entries = new Map<string, string>();
  if (!existsSync(file)) return entries;
  const pkg = JSON.parse(readFileSync(file, "utf8")) as {
    name: string;
    exports?: Record<string, Record<string, string>>;
  };
  for (const [subpath, conditions] of Object.entries(pkg.exports ?? {})) {
    const source = conditions["formwork-source"];
    if (source) entries.set(path.posix.join(pkg.name, subpath), path.posix.normalize(source));
  }
  return entries;
}

/** The layer of a root-relative path: the first whose pattern matches, or `undefined`. */
export function layerOf(file: string, table: Layer[]): Layer | undefined {
  return table.find((layer) => layer.files.some((pattern) => globMatches(pattern, file)));
}

/** `*` matches within one folder, `**` across folders. */
function globMatches(pattern: string, file: string): boolean {
  const source = pattern
    .split("**")
    .map((part) => part.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*"))
    .join(".*");
  return new RegExp(`^${source}$`).test(file);
}

/** The imports among `edges` that the table does not allow, and files in no layer. */
export function checkImports(edges: ImportEdge[], table: Layer[]): Violation[] {
  const violations: Violation[] = [];
  for (const edge of edges) {
    const from = layerOf(edge.from, table);
    const to = layerOf(edge.to, table);
    if (!from || !to) {
      const stray = from ? edge.to : edge.from;
      violations.push({ edge, problem: `${stray} is in no layer of the table` });
    } else if (from !== to && !from.mayImport.includes(to.name)) {
      violations.push({ edge, problem: `${from.name} may not import ${to.name}` });
    }
  }
  return violations;
}

/** One line per violation, `file:line → target: problem`. */
export function report(violations: Violation[]): string {
  return violations
    .map(({ edge, problem }) => `${edge.from}:${edge.line} → ${edge.to}: ${problem}`)
    .join("\n");
}
