/**
 * Which packages and Node modules a file may import (layers.ts, `coreBans` and
 * `adapterPackages`): the core never reaches outside but through a port, an adapter brings in
 * only what it declares, and the main entry only what installs with it.
 */
import { isBuiltin } from "node:module";
import type { ImportSpecifier, Violation } from "./imports.ts";

/** package.json, the fields read here. */
export interface PackageJson {
  name: string;
  dependencies?: Record<string, string>;
  peerDependencies?: Record<string, string>;
  peerDependenciesMeta?: Record<string, { optional?: boolean }>;
}

/** The package a specifier names: `@azure/cosmos/x` → `@azure/cosmos`, `lowdb/node` → `lowdb`. */
export function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

/**
 * Whether `ban` covers `specifier`. `node:fs` covers `node:fs`, `fs` and their subpaths
 * (`node:fs/promises`, `fs/promises`); `@azure/*` covers a whole scope; any other name covers
 * that package and its subpaths (`lowdb/node`).
 */
export function isBannedBy(specifier: string, ban: string): boolean {
  if (ban.startsWith("node:")) {
    const bare = specifier.replace(/^node:/, "");
    return isBuiltin(specifier) && packageOf(bare) === ban.slice("node:".length);
  }
  if (ban.endsWith("/*")) return specifier.startsWith(ban.slice(0, -1));
  return packageOf(specifier) === ban;
}

/** The imports of files under `dirs` that one of `bans` covers. */
export function checkBans(
  specifiers: ImportSpecifier[],
  dirs: string[],
  bans: string[],
): Violation[] {
  const violations: Violation[] = [];
  for (const { from, specifier, line } of specifiers) {
    const dir = dirs.find((candidate) => from.startsWith(`${candidate}/`));
    const ban = dir && bans.find((candidate) => isBannedBy(specifier, candidate));
    if (ban) {
      const problem = `${dir} may not import ${ban}: what reaches outside comes through a port`;
      violations.push({ edge: { from, to: specifier, line }, problem });
    }
  }
  return violations;
}

/**
 * The imports of `adapters/<name>/` files other than a relative path, the kit (`kit`), a
 * `node:` module, the package's own entries (the layer table's business) and the packages
 * `declared[name]` lists.
 */
export function checkAdapterPackages(
  specifiers: ImportSpecifier[],
  declared: Record<string, string[]>,
  kit: string[],
  self: string,
): Violation[] {
  const violations: Violation[] = [];
  for (const { from, specifier, line } of specifiers) {
    const adapter = /^adapters\/([^/]+)\//.exec(from)?.[1];
    if (!adapter || specifier.startsWith(".") || specifier.startsWith("node:")) continue;
    if (kit.includes(specifier) || packageOf(specifier) === self) continue;
    const packages = declared[adapter];
    if (packages?.includes(packageOf(specifier))) continue;
    const problem = packages
      ? `adapter ${adapter} imports ${packageOf(specifier)}, which it does not declare`
      : `adapter ${adapter} declares no packages in adapterPackages`;
    violations.push({ edge: { from, to: specifier, line }, problem });
  }
  return violations;
}

/** The declared packages of adapters that package.json does not list as a (peer) dependency. */
export function undeclaredInPackageJson(
  declared: Record<string, string[]>,
  pkg: PackageJson,
): string[] {
  const listed = { ...pkg.dependencies, ...pkg.peerDependencies };
  return Object.entries(declared).flatMap(([adapter, packages]) =>
    packages
      .filter((name) => !(name in listed))
      .map((name) => `adapter ${adapter} declares ${name}, which package.json does not list`),
  );
}

/**
 * The packages that files under `dir` import and that are not hard dependencies: the
 * entries built from them must load with only `dependencies` installed.
 */
export function checkHardDependencies(
  specifiers: ImportSpecifier[],
  dir: string,
  pkg: PackageJson,
): Violation[] {
  const violations: Violation[] = [];
  for (const { from, specifier, line } of specifiers) {
    if (!from.startsWith(`${dir}/`) || specifier.startsWith(".") || isBuiltin(specifier)) continue;
    const name = packageOf(specifier);
    if (name === pkg.name || name in (pkg.dependencies ?? {})) continue;
    const problem = `${dir} may import only dependencies, and ${name} is not one`;
    violations.push({ edge: { from, to: specifier, line }, problem });
  }
  return violations;
}
