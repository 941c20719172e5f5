/** The admin CLI's commands: what each needs, the admin API request it makes, its usage. */

/**
 * How usages and messages name the admin CLI (`name`) and the command that starts the server
 * (`start`): `npm run admin --` and `npm start` in this repository, `npx formwork admin` and
 * `npx formwork start` when the package's `formwork` command runs it (cli.ts sets them).
 */
export const adminProgram = { name: "npm run admin --", start: "npm start" };

/** An admin API request, relative to the server's address. */
export interface AdminRequest {
  method: "GET" | "POST" | "DELETE";
  path: string;
  body?: unknown;
}

/** The options that carry a command's value. */
export type ValueOption = "email" | "user-id" | "token-id" | "name";

/** One command of the admin CLI. */
export interface AdminCommand {
  name: string;
  /** The one option the command needs, if any, and how its usage names the value. */
  option?: { name: ValueOption; value: string };
  /** What the command does, in one line. */
  summary: string;
  /** A longer note for `<command> --help`, wrapped by hand. */
  note: string;
  /** The request for the option's value. */
  request(value: string): AdminRequest;
}

const accountTokens = (userId: string) =>
  `/api/admin/accounts/${encodeURIComponent(userId)}/tokens`;

/** Every command, in the order the usage lists them. */
export const commands: readonly AdminCommand[] = [
  {
    name: "create-account",
    option: { name: "email", value: "<e-mail>" },
    summary: "create a local account with its first token",
    note: "Prints the user id, the e-mail and the first token (token_id, token_secret).\nThe secret is shown only this once.",
    request: (email) => ({ method: "POST", path: "/api/admin/accounts", body: { email } }),
  },
  {
    name: "list-accounts",
    summary: "list the local accounts, oldest first",
    note: "Prints each account's user_id, email and created_date_utc. Partner customers are\nnot listed here: their partner lists them (P3).",
    request: () => ({ method: "GET", path: "/api/admin/accounts" }),
  },
  {
    name: "create-token",
    option: { name: "user-id", value: "<user id>" },
    summary: "issue another token for an account",
    note: "The user id is the account's user_id, e.g. 'local|0190…' (quote it: | is a shell\npipe). Prints the token; its secret is shown only this once.",
    request: (userId) => ({ method: "POST", path: accountTokens(userId), body: {} }),
  },
  {
    name: "list-tokens",
    option: { name: "user-id", value: "<user id>" },
    summary: "list an account's tokens, oldest first",
    note: "Prints each token's token_id and created_date_utc; never a secret.",
    request: (userId) => ({ method: "GET", path: accountTokens(userId) }),
  },
  {
    name: "revoke-token",
    option: { name: "token-id", value: "<token id>" },
    summary: "revoke one token; the account's other tokens keep working",
    note: "The token is refused (401) from the next request on. An unknown or already revoked\ntoken is an error (404).",
    request: (tokenId) => ({
      method: "DELETE",
      path: `/api/admin/tokens/${encodeURIComponent(tokenId)}`,
    }),
  },
  {
    name: "create-partner",
    option: { name: "name", value: "<name>" },
    summary: "register a partner platform with its credentials",
    note: "Prints partner_id and partner_secret, the PartnerId and PartnerSecret headers of\nthe partner endpoints. The secret is shown only this once.",
    request: (name) => ({ method: "POST", path: "/api/admin/partners", body: { name } }),
  },
];

/** The offline commands (`store-maintenance.ts`), run on the stopped server's `DATA_DIR`. */
const offlineCommands = [
  ["verify", "check the stopped store's files and counters (verify --help)"],
  ["repair", "repair the stopped store, saying what it drops (repair --help)"],
] as const;

/** The options every command takes, as the usage lists them. */
const commonOptions = `options:
  --url <url>                the server; default: PUBLIC_URL when set, else http://HOST:PORT
                             from the server's own settings (HOST 0.0.0.0 or :: as loopback)
  --admin-secret <secret>    default: ADMIN_SECRET when set, else DATA_DIR/admin-secret, the
                             secret the server made for itself on its first start
  -h, --help                 print this usage; after a command, that command's usage`;

/** The command's name with its option, as in `revoke-token --token-id <token id>`. */
function synopsis(command: AdminCommand): string {
  return command.option
    ? `${command.name} --${command.option.name} ${command.option.value}`
    : command.name;
}

/** The usage of the whole CLI: every command and the common options. */
export function usage(): string {
  const lines = [
    ...commands.map((c) => [synopsis(c), c.summary]),
    ["copy --to cosmos", "copy DATA_DIR to Cosmos DB and Azure Blob (server stopped)"],
    ["backup <folder>", "copy the running server's data into <folder> while it serves"],
    ["help [<command>]", "print this usage, or one command's"],
    ...offlineCommands.map(([name, summary]) => [name, `offline: ${summary}`]),
  ];
  const width = Math.max(...lines.map(([left]) => left?.length ?? 0)) + 2;
  return [
    `usage: ${adminProgram.name} <command> [options]`,
    "",
    "commands:",
    ...lines.map(([left = "", right = ""]) => `  ${left.padEnd(width)}${right}`),
    "",
    commonOptions,
  ].join("\n");
}

/** The usage of one command. */
export function commandUsage(command: AdminCommand): string {
  return [
    `usage: ${adminProgram.name} ${synopsis(command)} [--url <url>] [--admin-secret <secret>]`,
    "",
    `${command.summary[0]?.toUpperCase()}${command.summary.slice(1)}.`,
    command.note,
    "",
    commonOptions,
  ].join("\n");
}

/** The command of that name, or `undefined`. */
export function commandNamed(name: string | undefined): AdminCommand | undefined {
  return commands.find((command) => command.name === name);
}
