/**
 * The `formwork` command of the installed package (`npx formwork …`, docs/design.md §10):
 * the standalone server, the Azure server on local stand-ins, and the admin CLI, bundled
 * with the server into `dist/standalone/` when the package is packed. In this repository
 * the npm scripts run the same code from the sources (`npm start`, `npm run admin -- …`).
 *
 *   formwork start                  the standalone server (settings from the environment)
 *   formwork admin <command> …      the admin CLI (admin-cli.ts)
 *   formwork verify | backup | copy the admin CLI's offline and backup commands, directly
 */
import { commands as adminCommands, adminProgram } from "./admin-commands.ts";

/** The commands of `formwork`, as `--help` lists them. */
export const cliCommands = [
  ["start", "run the standalone server: lowdb and files under DATA_DIR (default ./data)"],
  ["start:azure", "run the Azure server: Cosmos DB and Azure Blob Storage (COSMOS_* variables)"],
  ["dev:azure", "run the Azure server on local stand-ins (needs azurite, @vercel/cosmosdb-server)"],
  ["admin <command>", "call a running server's admin API; formwork admin --help lists them"],
  ["backup <folder>", "copy the running server's data into <folder> while it serves"],
  ["verify", "offline: check the stopped server's store"],
  ["repair", "offline: repair the stopped server's store, saying what it drops"],
  ["copy --to cosmos", "offline: copy DATA_DIR to Cosmos DB and Azure Blob Storage"],
  ["help [<command>]", "print this usage, or a command's"],
] as const;

/** The usage of `formwork`: every command, and the admin commands. */
export function cliUsage(): string {
  const width = Math.max(...cliCommands.map(([name]) => name.length)) + 2;
  const line = ([name, summary]: readonly [string, string]) => `  ${name.padEnd(width)}${summary}`;
  return [
    "usage: formwork <command> [options]",
    "",
    "commands:",
    ...cliCommands.map(line),
    "",
    `admin commands (formwork admin <command> --help): ${adminCommands.map((c) => c.name).join(", ")}`,
    "",
    "Settings come from the environment (PORT, HOST, DATA_DIR, ADMIN_SECRET, …): see the",
    "README's configuration table. Options taking a value accept --name=value and --name value.",
  ].join("\n");
}

/** The packages a command needs beyond the package's own, and where they come from. */
const needs: Record<string, string> = {
  "start:azure": "@azure/cosmos @azure/storage-blob",
  "dev:azure": "@azure/cosmos @azure/storage-blob azurite @vercel/cosmosdb-server",
  copy: "@azure/cosmos @azure/storage-blob",
};

/** Runs `formwork` on `argv`. @returns the exit code, or `undefined` for a server that runs on */
export async function runCli(argv: string[]): Promise<number | undefined> {
  const [name, ...rest] = argv;
  adminProgram.name = "npx formwork admin";
  adminProgram.start = "npx formwork start";
  if (name === undefined || name === "--help" || name === "-h" || (name === "help" && !rest[0])) {
    console.log(cliUsage());
    return name === undefined ? 2 : 0;
  }
  if (name === "help" && rest.length === 1 && servers.includes(rest[0] as string)) {
    return run(rest[0] as string, ["--help"]);
  }
  try {
    return await run(name, rest);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ERR_MODULE_NOT_FOUND" || !(name in needs)) throw error;
    console.error(`formwork: ${name} needs ${needs[name]}: npm install ${needs[name]}`);
    return 1;
  }
}

/** The commands that run a server until it is stopped. */
const servers = ["start", "start:azure", "dev:azure"];

async function run(name: string, rest: string[]): Promise<number | undefined> {
  const summary = cliCommands.find(([n]) => n === name)?.[1] ?? "";
  const serverHelp = `usage: formwork ${name}\n\n${summary[0]?.toUpperCase()}${summary.slice(1)}.\nSettings come from the environment: see the README's configuration table.`;
  if (servers.includes(name)) {
    if (rest.length > 0) {
      const help = rest.length === 1 && (rest[0] === "--help" || rest[0] === "-h");
      (help ? console.log : console.error)(
        help ? serverHelp : `formwork: unexpected ${rest[0]}\n\n${serverHelp}`,
      );
      return help ? 0 : 2;
    }
    if (name === "start") await import("./server.ts");
    else if (name === "start:azure") await import("../azure/server.ts");
    else await import("../azure/dev.ts");
    return undefined;
  }
  const { runAdmin } = await import("./admin-cli.ts");
  if (name === "admin") return runAdmin(rest);
  if (["backup", "verify", "repair", "copy", "help"].includes(name))
    return runAdmin([name, ...rest]);
  console.error(`formwork: unknown command ${name}\n\n${cliUsage()}`);
  return 2;
}

// A server that runs on sets no exit code: it exits by itself when stopped.
runCli(process.argv.slice(2)).then(
  (code) => {
    if (code !== undefined) process.exitCode = code;
  },
  (error: unknown) => {
    console.error(`formwork: ${error instanceof Error ? error.message : String(error)}`);
    process.exitCode = 1;
  },
);
