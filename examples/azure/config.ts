/**
 * The Azure server's settings: the standalone server's variables (docs/design.md §10) plus where
 * Cosmos DB and Azure Blob Storage are.
 */
import { configOf, type ServerConfig, together, variables } from "../standalone/config.ts";
import {
  flag,
  parseEnvironment,
  requiredText,
  text,
  url,
  type Variable,
  wholeNumber,
} from "../standalone/environment.ts";

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

/** The Azure server's variables: the standalone server's and those of Cosmos DB and Azure Storage. */
export const azureVariables = {
  ...variables,
  COSMOS_ENDPOINT: url(["https:", "http:"], "a URL", true),
  COSMOS_KEY: requiredText(),
  COSMOS_DATABASE: requiredText(),
  COSMOS_CONTAINER: text("formwork"),
  COSMOS_ENDPOINT_DISCOVERY: flag(true),
  COSMOS_RECOVERY_INTERVAL_MS: wholeNumber(10_000, 0),
  COSMOS_INTENT_GRACE_MS: wholeNumber(10_000, 0),
  COSMOS_REQUEST_TIMEOUT_MS: wholeNumber(10_000, 1),
  AZURE_STORAGE_CONNECTION_STRING: requiredText(),
  CUSTOMER_TOKEN_SECRET: text(),
  TRUST_PROXY: flag(false),
} satisfies Record<string, Variable>;

/**
 * Reads the settings from `env`.
 * @throws {ConfigError} with one line for each variable that is missing or makes no sense.
 */
export function readAzureConfig(env: NodeJS.ProcessEnv): AzureConfig {
  const values = parseEnvironment(azureVariables, env, together);
  return {
    ...configOf(values),
    cosmosEndpoint: values.COSMOS_ENDPOINT,
    cosmosKey: values.COSMOS_KEY,
    cosmosDatabase: values.COSMOS_DATABASE,
    cosmosContainer: values.COSMOS_CONTAINER,
    cosmosEndpointDiscovery: values.COSMOS_ENDPOINT_DISCOVERY,
    cosmosRecoveryIntervalMs: values.COSMOS_RECOVERY_INTERVAL_MS,
    cosmosIntentGraceMs: values.COSMOS_INTENT_GRACE_MS,
    cosmosRequestTimeoutMs: values.COSMOS_REQUEST_TIMEOUT_MS,
    storageConnectionString: values.AZURE_STORAGE_CONNECTION_STRING,
    customerTokenSecret: values.CUSTOMER_TOKEN_SECRET,
    trustProxy: values.TRUST_PROXY,
  };
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
