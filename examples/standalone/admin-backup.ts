/**
 * `npm run admin -- backup <folder>`: asks the running server for a consistent copy of its
 * data folder (docs/design.md §23) and writes it into `<folder>`, which a server can then
 * be started on (`DATA_DIR=<folder>`). Exit codes as the other commands: 0 done, 1 the
 * server refused, could not be reached or the copy failed, 2 a usage error.
 */
import { once } from "node:events";
import { mkdir, open, readdir, rm, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import { Readable } from "node:stream";
import type { ReadableStream as NodeReadableStream } from "node:stream/web";
import { Presets, SingleBar } from "cli-progress";
import { extract } from "tar";
import { adminProgram } from "./admin-commands.ts";
import { type AdminSecret, adminSecretOf, adminServerUrl } from "./admin-target.ts";
import {
  BACKUP_BYTES_HEADER,
  BACKUP_FILES_HEADER,
  BACKUP_PATH,
  DEFAULT_MAX_RATE,
} from "./backup-route.ts";
import { parseCommandLine } from "./cli-args.ts";
import { readConfig } from "./config.ts";

/** The usage of `backup`, for `--help` and usage errors. */
export const backupUsage = `usage: ${adminProgram.name} backup <folder> [--max-rate <MiB/s>] [--url <url>] [--admin-secret <secret>]

Back up the running server's data while it goes on serving.
Writes into <folder> (created if missing; it must be empty) a copy of DATA_DIR holding
every submission acknowledged before the command began, its files, and the server's
secrets (0600). Restore: stop the server, replace DATA_DIR with <folder>, start it.

options:
  --max-rate <MiB/s>         how fast the server sends the copy; default ${DEFAULT_MAX_RATE}, 0 for no
                             limit (each MiB costs the server's requests some CPU)
  --url <url>                the server; default: PUBLIC_URL when set, else http://HOST:PORT
  --admin-secret <secret>    default: ADMIN_SECRET when set, else DATA_DIR/admin-secret
  -h, --help                 print this usage`;

/** Runs `backup` with the arguments after its name. @returns the exit code */
export async function runBackup(argv: string[]): Promise<number> {
  let folder: string;
  let values: { url?: string; "admin-secret"?: string; "max-rate"?: string; help?: boolean };
  try {
    const parsed = parseCommandLine({
      args: argv,
      allowPositionals: true,
      options: {
        url: { type: "string" },
        "admin-secret": { type: "string" },
        "max-rate": { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    });
    values = parsed.values;
    if (values.help) {
      console.log(backupUsage);
      return 0;
    }
    if (parsed.positionals.length !== 1) throw new Error("backup needs one folder");
    const rate = values["max-rate"];
    if (rate !== undefined && !/^\d{1,6}(\.\d{1,3})?$/.test(rate)) {
      throw new Error(`--max-rate must be a number of MiB a second, not ${JSON.stringify(rate)}`);
    }
    folder = resolve(parsed.positionals[0] as string);
  } catch (error) {
    console.error(`admin: ${(error as Error).message}\n\n${backupUsage}`);
    return 2;
  }
  const notEmpty = await refusal(folder);
  if (notEmpty) {
    console.error(`admin: ${notEmpty}`);
    return 2;
  }
  const config = readConfig(process.env);
  const base = adminServerUrl(values.url, process.env, config);
  const secret = await adminSecretOf(values["admin-secret"], config);
  const query = values["max-rate"] === undefined ? "" : `?max_rate=${values["max-rate"]}`;
  const response = await request(`${base}${BACKUP_PATH}${query}`, base, secret);
  const started = Date.now();
  const existed = await exists(folder);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  try {
    const got = await unpack(response, folder);
    await secureAndSync(folder);
    const seconds = ((Date.now() - started) / 1000).toFixed(1);
    console.log(
      `backup of ${base} written to ${folder}: ${got.files} files, ${mebibytes(got.bytes)} in ${seconds} s\n` +
        `restore: stop the server, replace DATA_DIR with ${folder}, start it`,
    );
    return 0;
  } catch (error) {
    // A cut copy must not pass for a backup: what was written goes.
    if (existed) await emptyFolder(folder);
    else await rm(folder, { recursive: true, force: true });
    throw error;
  }
}

/** Why `folder` cannot take a backup (not a folder, not empty), or `undefined`. */
async function refusal(folder: string): Promise<string | undefined> {
  try {
    if (!(await stat(folder)).isDirectory()) return `${folder} is not a folder`;
    if ((await readdir(folder)).length > 0) {
      return `${folder} is not empty; back up into a new or empty folder`;
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  return undefined;
}

/** Starts the backup. @throws {Error} saying, in the operator's terms, why it was refused */
async function request(url: string, base: string, secret: AdminSecret): Promise<Response> {
  const { source } = secret;
  let response: Response;
  try {
    response = await fetch(url, { method: "POST", headers: { AdminSecret: secret.secret } });
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    const why = code && code !== "ECONNREFUSED" ? ` (${code})` : "";
    throw new Error(`no server answers at ${base}${why}; start it with ${adminProgram.start}`);
  }
  if (response.ok && response.body) return response;
  const text = await response.text();
  if (response.status === 401) {
    throw new Error(
      `the server at ${base} refused the admin secret from ${source} (401); pass the server's with --admin-secret or ADMIN_SECRET`,
    );
  }
  let message = text;
  try {
    message = (JSON.parse(text) as { message?: string }).message ?? text;
  } catch {
    throw new Error(`${base} answered ${response.status} with no JSON: is it a formwork server?`);
  }
  throw new Error(`${response.status}: ${message}`);
}

/**
 * Extracts the archive into `folder`, showing progress against the totals the server
 * announced. Only files and folders are written; tar refuses entries that would land
 * outside `folder` (absolute paths, `..`), and `strict` makes that, or a cut archive, fail.
 * @throws {Error} when the archive is cut short or holds less than announced
 */
async function unpack(response: Response, folder: string) {
  const files = Number(response.headers.get(BACKUP_FILES_HEADER));
  const bytes = Number(response.headers.get(BACKUP_BYTES_HEADER));
  const bar = new SingleBar(
    {
      stream: process.stderr,
      format:
        "backup [{bar}] {percentage}% | {done} of {total_size} | {files} of {total_files} files | ETA {eta_formatted}",
      hideCursor: true,
    },
    Presets.shades_classic,
  );
  const got = { files: 0, bytes: 0 };
  const payload = {
    done: mebibytes(0),
    total_size: mebibytes(bytes),
    files: 0,
    total_files: files,
  };
  bar.start(Math.max(bytes, 1), 0, payload);
  const unpacking = extract({
    cwd: folder,
    strict: true,
    filter: (_path, entry) =>
      "type" in entry && (entry.type === "File" || entry.type === "Directory"),
    onReadEntry: (entry) => {
      if (entry.type !== "File") return;
      // Never a "data" listener here: it would take the bytes before tar writes the file.
      entry.on("end", () => {
        got.files++;
        got.bytes += entry.size;
      });
    },
  });
  const body = Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>);
  // The bar follows the archive's bytes as they arrive, so that one large file moves it too
  // (headers make the archive a little larger than the files it holds).
  let received = 0;
  body.on("data", (chunk: Uint8Array) => {
    received += chunk.byteLength;
    const done = Math.min(received, bytes);
    bar.update(done, { ...payload, done: mebibytes(done), files: got.files });
  });
  try {
    const closed = once(unpacking, "close");
    const failed = new Promise<never>((_, reject) => {
      unpacking.on("error", (error: Error) =>
        reject(new Error(`the archive is unsafe or damaged, nothing kept: ${error.message}`)),
      );
      body.on("error", (error: Error) =>
        reject(new Error(`the backup was cut short, nothing kept: ${error.message}`)),
      );
    });
    body.pipe(unpacking);
    await Promise.race([closed, failed]);
  } finally {
    bar.stop();
  }
  if (got.files !== files || got.bytes !== bytes) {
    throw new Error(
      `the backup ended early: ${got.files} of ${files} files, ${got.bytes} of ${bytes} bytes`,
    );
  }
  return got;
}

/**
 * Closes every folder to its owner (0700) and every file (0600), whatever the archive or
 * the umask said, and flushes them to the disk, so the copy survives a power loss.
 */
async function secureAndSync(folder: string): Promise<void> {
  for (const entry of await readdir(folder, { withFileTypes: true, recursive: true })) {
    const path = join(entry.parentPath, entry.name);
    await syncWithMode(path, entry.isDirectory() ? 0o700 : 0o600);
  }
  await syncWithMode(folder, 0o700);
}

async function syncWithMode(path: string, mode: number): Promise<void> {
  const handle = await open(path, "r");
  try {
    await handle.chmod(mode);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

async function emptyFolder(folder: string): Promise<void> {
  for (const name of await readdir(folder)) {
    await rm(join(folder, name), { recursive: true, force: true });
  }
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

function mebibytes(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}
