/**
 * The Azure server's settings: the standalone server's variables (docs/design.md §10) plus where
 * Cosmos DB and Azure Blob Storage are.
 */
import { readConfig, type ServerConfig } from "../standalone/config.ts";

/** Where the records and the attachment files live. */
export interface AzureConfig extends ServerConfig {
  /** `COSMOS_ENDPOINT`, e.g. `https://<account>.documents.azure.com:443/`. */
  cosmosEndpoint: string;
  /** `COSMOS_KEY`: the account's primary or secondary key. */
  cosmosKey: string;
  /** `COSMOS_DATABASE`: the database, created with its container on first use if missing. */
  cosmosDatabase: string;
  /** `COSMOS_CONTAINER`, default `formwork`. */
  cosmosContainer: string;
  /**
   * `COSMOS_ENDPOINT_DISCOVERY=0` turns the SDK's endpoint discovery off: requests then go to
   * `COSMOS_ENDPOINT` itself rather than to the regions the account lists. Needed against an
   * emulator that lists an address it does not serve (the Cosmos stand-in over plain HTTP
   * lists `https://…`). Default on (`1`), which a multi-region account needs to fail over.
   */
  cosmosEndpointDiscovery: boolean;
  /**
   * `COSMOS_RECOVERY_INTERVAL_MS`: how often this instance looks for multi-record writes that
   * a crashed instance left unfinished, and finishes them (adapters/cosmos/README.md,
   * "Crash-exact writes"). Default 10000; 0 turns it off (another instance must run it).
   */
  cosmosRecoveryIntervalMs: number;
  /**
   * `COSMOS_INTENT_GRACE_MS`: how old such a write must be before recovery finishes it,
   * more than a write takes plus the clock skew between instances. Default 10000.
   */
  cosmosIntentGraceMs: number;
  /**
   * `COSMOS_REQUEST_TIMEOUT_MS`: how long one Cosmos DB request may take before it counts as
   * failed (the request then answers 503). Default 10000.
   */
  cosmosRequestTimeoutMs: number;
  /** `AZURE_STORAGE_CONNECTION_STRING`: a connection string with the account key. */
  storageConnectionString: string;
  /**
   * `CUSTOMER_TOKEN_SECRET`: the key that signs customer login tokens; give every instance
   * the same one. Unset, a single instance keeps one under `DATA_DIR`.
   */
  customerTokenSecret: string | undefined;
  /**
   * `TRUST_PROXY=1`: take the client address from `X-Forwarded-For`, as set by the front
   * end of App Service, Container Apps or Front Door. Leave it unset when clients reach the
   * server directly.
   */
  trustProxy: boolean;
}

/**
 * Reads the settings from `env`.
 * @throws {Error} naming the variable that is missing or makes no sense.
 */
export function readAzureConfig(env: NodeJS.ProcessEnv): AzureConfig {
  const cosmosEndpoint = required(env, "COSMOS_ENDPOINT");
  if (!URL.canParse(cosmosEndpoint)) {
    throw new Error(`COSMOS_ENDPOINT must be a URL, not ${JSON.stringify(cosmosEndpoint)}`);
  }
  return {
    ...readConfig(env),
    cosmosEndpoint,
    cosmosKey: required(env, "COSMOS_KEY"),
    cosmosDatabase: required(env, "COSMOS_DATABASE"),
    cosmosContainer: env.COSMOS_CONTAINER || "formwork",
    cosmosEndpointDiscovery: flag(env, "COSMOS_ENDPOINT_DISCOVERY", true),
    cosmosRecoveryIntervalMs: milliseconds(env, "COSMOS_RECOVERY_INTERVAL_MS", 10_000),
    cosmosIntentGraceMs: milliseconds(env, "COSMOS_INTENT_GRACE_MS", 10_000),
    cosmosRequestTimeoutMs: positiveMilliseconds(env, "COSMOS_REQUEST_TIMEOUT_MS", 10_000),
    storageConnectionString: required(env, "AZURE_STORAGE_CONNECTION_STRING"),
    customerTokenSecret: env.CUSTOMER_TOKEN_SECRET || undefined,
    trustProxy: env.TRUST_PROXY === "1",
  };
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} must be set`);
  return value;
}

function milliseconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = env[name];
  if (!value) return fallback;
  if (!/^\d{1,9}$/.test(value)) {
    throw new Error(`${name} must be a whole number of milliseconds, not ${JSON.stringify(value)}`);
  }
  return Number(value);
}

function positiveMilliseconds(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = milliseconds(env, name, fallback);
  if (value === 0) throw new Error(`${name} must be at least 1 millisecond, not 0`);
  return value;
}

function flag(env: NodeJS.ProcessEnv, name: string, fallback: boolean): boolean {
  const value = env[name];
  if (!value) return fallback;
  if (value === "0" || value === "1") return value === "1";
  throw new Error(`${name} must be 0 or 1, not ${JSON.stringify(value)}`);
}

/**
 * The Cosmos DB store's options that the settings name: the account, the database and
 * container (created on first use if missing), and how to reach the account. The server adds
 * its recovery settings; the copy turns recovery off.
 */
export function cosmosOptionsOf(config: AzureConfig) {
  return {
    endpoint: config.cosmosEndpoint,
    key: config.cosmosKey,
    databaseId: config.cosmosDatabase,
    containerId: config.cosmosContainer,
    endpointDiscovery: config.cosmosEndpointDiscovery,
    requestTimeoutMs: config.cosmosRequestTimeoutMs,
    createIfMissing: true,
  };
}
