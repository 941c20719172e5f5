/** Where the admin CLI finds the running server and its admin secret. */
import { readFile } from "node:fs/promises";
import { isIPv6 } from "node:net";
import { adminProgram } from "./admin-commands.ts";
import { adminSecretFile, type ServerConfig } from "./config.ts";

/**
 * The address at which a client on this machine reaches the server that runs with
 * `config`: `http://HOST:PORT`, with the wildcard addresses a server listens on (`0.0.0.0`,
 * `::`) replaced by the loopback address, which a client can connect to.
 */
export function localServerUrl(config: Pick<ServerConfig, "host" | "port">): string {
  const host = config.host === "0.0.0.0" ? "127.0.0.1" : config.host === "::" ? "::1" : config.host;
  return `http://${isIPv6(host) ? `[${host}]` : host}:${config.port}`;
}

/**
 * The server the admin CLI talks to: `--url` when given, else `PUBLIC_URL` when set, else
 * {@link localServerUrl} from `HOST` and `PORT`, so that the CLI run with the server's
 * environment finds it.
 * @throws {Error} when the address would be port 0 (any free port), which nobody can reach.
 */
export function adminServerUrl(
  given: string | undefined,
  env: NodeJS.ProcessEnv,
  config: ServerConfig,
): string {
  if (given) return given.replace(/\/+$/, "");
  if (env.PUBLIC_URL) return config.publicUrl;
  if (config.port === 0) {
    throw new Error(
      "PORT=0 lets the server pick any free port: pass --url with the address of its `listening on` line",
    );
  }
  return localServerUrl(config);
}

/** The admin secret the CLI sends, and where it was read, for error messages. */
export interface AdminSecret {
  secret: string;
  /** `--admin-secret`, `ADMIN_SECRET` or the file's path. */
  source: string;
}

/**
 * The admin secret: `--admin-secret` when given, else `ADMIN_SECRET`, else the file the
 * server keeps in `DATA_DIR` (see `resolveAdminSecret`).
 * @throws {Error} saying how to give one when there is none.
 */
export async function adminSecretOf(
  given: string | undefined,
  config: ServerConfig,
): Promise<AdminSecret> {
  if (given) return { secret: given, source: "--admin-secret" };
  if (config.adminSecret) return { secret: config.adminSecret, source: "ADMIN_SECRET" };
  const file = adminSecretFile(config.dataDir);
  try {
    return { secret: (await readFile(file, "utf8")).trim(), source: file };
  } catch {
    throw new Error(
      `no admin secret: set ADMIN_SECRET, pass --admin-secret, or start the server (${adminProgram.start}) once so that it writes ${file}`,
    );
  }
}
