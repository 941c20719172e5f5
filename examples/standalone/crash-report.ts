/**
 * An unexpected crash of the bundled server, told in TypeScript lines: the frames of its
 * stack that point into the bundle (`build/standalone/*.js`) are mapped through the bundle's
 * source maps, read only then. `--enable-source-maps` would do the same but parses the 3 MB
 * map at every start (about a quarter of a second more); under tsx the stack is mapped
 * already and nothing changes.
 */
import { readFileSync } from "node:fs";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";

/** Prints an uncaught error or rejection with its stack mapped, then exits 1. */
export function reportCrashes(): void {
  const crash = (error: unknown) => {
    console.error(`formwork: unexpected failure\n${mappedStack(error)}`);
    process.exit(1);
  };
  process.on("uncaughtException", crash);
  process.on("unhandledRejection", crash);
}

/** The stack of `error`, its bundle frames replaced by their TypeScript file and line. */
export function mappedStack(error: unknown): string {
  const stack = error instanceof Error ? (error.stack ?? String(error)) : String(error);
  const maps = new Map<string, SourceMap | null>();
  return stack.replace(
    /((?:file:\/\/)?\/[^\s()]+\.js):(\d+):(\d+)/g,
    (frame, file, line, column) => {
      const path = file.startsWith("file:") ? fileURLToPath(file) : file;
      if (!maps.has(path)) maps.set(path, mapOf(path));
      const entry = maps.get(path)?.findEntry(Number(line) - 1, Number(column) - 1);
      if (!entry || !("originalSource" in entry)) return frame;
      const source = entry.originalSource.replace(/^.*?(?=(?:examples|src|adapters)\/)/, "");
      return `${source}:${entry.originalLine + 1}:${entry.originalColumn + 1}`;
    },
  );
}

function mapOf(path: string): SourceMap | null {
  try {
    return new SourceMap(JSON.parse(readFileSync(`${path}.map`, "utf8")));
  } catch {
    return null;
  }
}
