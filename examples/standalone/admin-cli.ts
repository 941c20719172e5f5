/**
 * The admin CLI: talks to a running standalone server through its admin API.
 *
 *   npm run admin -- --help
 *   npm run admin -- create-account --email you@example.com
 *   npm run admin -- list-tokens --user-id 'local|…'
 *   npm run admin -- revoke-token --token-id …
 *   npm run admin -- backup <folder>       (a copy of the running server's DATA_DIR)
 *
 * and offline, on the stopped server's DATA_DIR itself:
 *
 *   npm run admin -- verify
 *   npm run admin -- repair
 *   npm run admin -- copy --to cosmos      (DATA_DIR to Cosmos DB and Azure Blob)
 *
 * Run with the server's environment, it finds the server (`PUBLIC_URL`, else `HOST` and
 * `PORT`) and its admin secret (`ADMIN_SECRET`, else the file in `DATA_DIR`) by itself.
 * Exit codes: 0 done, 1 the server refused or could not be reached, 2 a usage error.
 */
import { realpathSync } from "node:fs";
import { pathToFileURL } from "node:url";
import {
  type AdminCommand,
  adminProgram,
  commandNamed,
  commandUsage,
  usage,
} from "./admin-commands.ts";
import { type AdminSecret, adminSecretOf, adminServerUrl } from "./admin-target.ts";
import { parseCommandLine } from "./cli-args.ts";
import { readConfig } from "./config.ts";

/** Runs the admin CLI on `argv` (the arguments after `admin`). @returns the exit code */
export async function runAdmin(argv: string[]): Promise<number> {
  // Commands with a module of their own, loaded only for them: the offline ones work on
  // DATA_DIR itself (they bring the store adapters and the Azure SDKs); backup streams.
  const helped = argv[0] === "help" && argv.length === 2;
  const own = helped ? argv[1] : argv[0];
  const ownArgs = helped ? ["--help"] : argv.slice(1);
  if (own === "verify" || own === "repair") {
    const { runMaintenance } = await import("./store-maintenance.ts");
    return runMaintenance(own, ownArgs);
  }
  if (own === "copy") {
    const { runCopy } = await import("./admin-copy.ts");
    return runCopy(ownArgs);
  }
  if (own === "backup") {
    const { runBackup } = await import("./admin-backup.ts");
    return runBackup(ownArgs);
  }
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(argv);
  } catch (error) {
    console.error(`admin: ${(error as Error).message}\n\n${usage()}`);
    return 2;
  }
  const { positionals, values } = parsed;
  const [name, ...rest] = positionals;
  if (name === "help" || (values.help && !name)) {
    const command = commandNamed(rest[0]);
    if (rest.length > 1 || (rest[0] && !command)) {
      console.error(`admin: unknown command ${rest.join(" ")}\n\n${usage()}`);
      return 2;
    }
    console.log(command ? commandUsage(command) : usage());
    return 0;
  }
  const command = commandNamed(name);
  if (!command || rest.length > 0) {
    const why = !name ? "" : command ? `unexpected ${rest[0]}` : `unknown command ${name}`;
    console.error(`${why && `admin: ${why}\n\n`}${usage()}`);
    return 2;
  }
  if (values.help) {
    console.log(commandUsage(command));
    return 0;
  }
  const value = command.option ? values[command.option.name] : "";
  if (typeof value !== "string" || (command.option && value === "")) {
    console.error(
      `admin: ${command.name} needs --${command.option?.name}\n\n${commandUsage(command)}`,
    );
    return 2;
  }
  const config = readConfig(process.env);
  const base = adminServerUrl(values.url, process.env, config);
  const secret = await adminSecretOf(values["admin-secret"], config);
  console.log(JSON.stringify(await send(command, value, base, secret), null, 2));
  return 0;
}

function parse(argv: string[]) {
  return parseCommandLine({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      "user-id": { type: "string" },
      "token-id": { type: "string" },
      name: { type: "string" },
      url: { type: "string" },
      "admin-secret": { type: "string" },
      help: { type: "boolean", short: "h" },
    },
  });
}

/**
 * Sends the command's request. @returns the server's JSON answer
 * @throws {Error} saying what went wrong, in the operator's terms.
 */
async function send(command: AdminCommand, value: string, base: string, secret: AdminSecret) {
  const { method, path, body } = command.request(value);
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: {
        AdminSecret: secret.secret,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    const why = code && code !== "ECONNREFUSED" ? ` (${code})` : "";
    throw new Error(`no server answers at ${base}${why}; start it with ${adminProgram.start}`);
  }
  const text = await response.text();
  let answer: { message?: string; issues?: { path: string; message: string }[] };
  try {
    answer = JSON.parse(text);
  } catch {
    throw new Error(`${base} answered ${response.status} with no JSON: is it a formwork server?`);
  }
  if (response.status === 401) {
    throw new Error(
      `the server at ${base} refused the admin secret from ${secret.source} (401); pass the server's with --admin-secret or ADMIN_SECRET`,
    );
  }
  if (!response.ok) {
    const issues = (answer.issues ?? []).map((issue) => `\n  ${issue.path}: ${issue.message}`);
    throw new Error(`${response.status}: ${answer.message ?? text}${issues.join("")}`);
  }
  return answer;
}

/** Runs `run`, then sets the exit code, or prints the error on one line and sets 1. */
export function exitWhenDone(run: Promise<number>) {
  // exitCode rather than exit(): a piped stdout is written asynchronously on some systems.
  run.then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`admin: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    },
  );
}

// Run as a script (`npm run admin`, the tests); `formwork admin` imports it instead.
const script = process.argv[1];
if (script && import.meta.url === pathToFileURL(realpathSync(script)).href) {
  exitWhenDone(runAdmin(process.argv.slice(2)));
}
