import { execFile } from "node:child_process";
import { chmod, mkdtemp, readFile, rename, rm, stat } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import sparticuz from "@sparticuz/chromium";
import { type Browser, chromium } from "playwright-core";

/**
 * Flags for any Chromium here: the machine reaches no network but loopback, so nothing may
 * phone home or wait for an update (Playwright adds most of these too; they are kept explicit).
 */
const offlineArgs = [
  "--no-sandbox",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

/**
 * `@sparticuz/chromium`'s serverless flags that do not suit these tests: `--single-process`
 * crashes the browser when a test closes one context and opens the next, and the others turn
 * off the same-origin and site-isolation rules that the framed-page test relies on.
 */
const serverlessOnly = [
  "--single-process",
  "--disable-web-security",
  "--allow-running-insecure-content",
  "--disable-site-isolation-trials",
  "--disable-features=",
];

/** The package's flags, less {@link serverlessOnly}, plus {@link offlineArgs}. */
export function registryChromiumArgs(): string[] {
  const kept = sparticuz.args.filter((arg) => !serverlessOnly.some((flag) => arg.startsWith(flag)));
  return [...new Set([...kept, ...offlineArgs])];
}

const run = promisify(execFile);
let unpacked: Promise<string> | undefined;

/**
 * The registry's Chromium (`@sparticuz/chromium`), unpacked once per version into
 * `<tmpdir>/formwork-chromium-<version>/`, and its path.
 *
 * The package unpacks into `os.tmpdir()` itself and takes a binary that merely exists there for
 * a finished one, so two test files unpacking at once could launch a half-written file. Each
 * process therefore unpacks in a child whose `TMPDIR` is a fresh folder, then renames that
 * folder into place: the rename is atomic, and the loser of a race drops its copy.
 */
export function registryChromiumPath(): Promise<string> {
  unpacked ??= unpack();
  return unpacked;
}

async function unpack(): Promise<string> {
  const entry = import.meta.resolve("@sparticuz/chromium");
  const manifest = new URL("../../package.json", entry);
  const { version } = JSON.parse(await readFile(manifest, "utf8")) as { version: string };
  const folder = join(tmpdir(), `formwork-chromium-${version}`);
  const binary = join(folder, "chromium");
  if (await isFile(binary)) return binary;
  const staging = await mkdtemp(join(tmpdir(), "formwork-chromium-unpacking-"));
  try {
    const script =
      "const { default: c } = await import(process.argv[1]); await c.executablePath();";
    await run(process.execPath, ["--input-type=module", "-e", script, entry], {
      env: { ...process.env, TMPDIR: staging },
    });
    await chmod(staging, 0o755);
    await rename(staging, folder).catch(async (error: NodeJS.ErrnoException) => {
      if (error.code !== "ENOTEMPTY" && error.code !== "EEXIST") throw error;
    });
  } finally {
    await rm(staging, { recursive: true, force: true });
  }
  return binary;
}

async function isFile(path: string): Promise<boolean> {
  return stat(path).then(
    (found) => found.isFile(),
    () => false,
  );
}

/**
 * Launches headless Chromium: the binary at `CHROMIUM_PATH` when that is set (with the flags
 * that suit a distribution's Chromium), otherwise the one `npm ci` brought with
 * `@sparticuz/chromium`, with {@link registryChromiumArgs}.
 */
export async function launchChromium(): Promise<Browser> {
  const own = process.env.CHROMIUM_PATH;
  if (own) {
    return chromium.launch({
      executablePath: own,
      headless: true,
      args: ["--headless", "--disable-gpu", ...offlineArgs],
    });
  }
  return chromium.launch({
    executablePath: await registryChromiumPath(),
    headless: true,
    args: registryChromiumArgs(),
  });
}
