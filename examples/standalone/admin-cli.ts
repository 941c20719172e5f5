/**
 * The admin CLI: talks to a running standalone server through its admin API.
 *
 *   npm run admin -- create-account --email you@example.com
 *   npm run admin -- create-token --user-id 'local|…'
 *   npm run admin -- create-partner --name "Acme"
 *
 * The server is `--url`, else `PUBLIC_URL`, else http://localhost:3000; the secret is
 * `--admin-secret`, else `ADMIN_SECRET`, else the file the server keeps in `DATA_DIR`.
 */
import { readFile } from "node:fs/promises";
import { parseArgs } from "node:util";
import { adminSecretFile, readConfig } from "./config.ts";

const usage = `usage: npm run admin -- <command> [options]
  create-account --email <e-mail>   an account with its first token
  create-token --user-id <user id>  another token for an account
  create-partner --name <name>      a partner with its credentials
options: --url <server url> --admin-secret <secret>`;

async function main(argv: string[]): Promise<number> {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      email: { type: "string" },
      "user-id": { type: "string" },
      name: { type: "string" },
      url: { type: "string" },
      "admin-secret": { type: "string" },
    },
  });
  const request = requestFor(positionals[0], values);
  if (!request) {
    console.error(usage);
    return 2;
  }
  const config = readConfig(process.env);
  const base = (values.url ?? config.publicUrl).replace(/\/+$/, "");
  const secret =
    values["admin-secret"] ?? config.adminSecret ?? (await readSecretFile(config.dataDir));
  const response = await fetch(`${base}${request.path}`, {
    method: "POST",
    headers: { AdminSecret: secret, "content-type": "application/json" },
    body: JSON.stringify(request.body),
  });
  console.log(JSON.stringify(await response.json(), null, 2));
  return response.ok ? 0 : 1;
}

function requestFor(
  command: string | undefined,
  values: Record<string, string | boolean | undefined>,
) {
  const text = (name: string) =>
    typeof values[name] === "string" ? (values[name] as string) : undefined;
  if (command === "create-account" && text("email")) {
    return { path: "/api/admin/accounts", body: { email: text("email") } };
  }
  if (command === "create-token" && text("user-id")) {
    return {
      path: `/api/admin/accounts/${encodeURIComponent(text("user-id") ?? "")}/tokens`,
      body: {},
    };
  }
  if (command === "create-partner" && text("name")) {
    return { path: "/api/admin/partners", body: { name: text("name") } };
  }
  return null;
}

async function readSecretFile(dataDir: string): Promise<string> {
  try {
    return (await readFile(adminSecretFile(dataDir), "utf8")).trim();
  } catch {
    throw new Error(
      `No admin secret: set ADMIN_SECRET, pass --admin-secret, or start the server once so it writes ${adminSecretFile(dataDir)}`,
    );
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(`admin: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
