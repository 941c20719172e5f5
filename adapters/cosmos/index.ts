/**
 * The production `Store` over Azure Cosmos DB (`@azure/cosmos`, NoSQL API).
 *
 * Layout: one container (default `formwork`) holds every collection. An item is the record
 * plus `pk`, the Store partition, and `coll`, its collection, so every collection's records
 * of one partition share one logical partition: a form's counter, submissions and files.
 * Every operation is a point read or write by id and partition key, a single-partition
 * query, or a transactional batch; a batch across partition keys is finished after a crash
 * by the background recovery (intents.ts). See `README.md` beside this file for the crash
 * promises, the indexing policy, the requests each endpoint costs and how to outgrow 20 GB
 * per form.
 *
 * Etags are Cosmos DB's `_etag`; conditional writes send `If-Match`. Query pages carry
 * Cosmos DB's continuation tokens, wrapped so that a forged one is refused. Throttling (429)
 * is retried by the SDK within `maxThrottleRetries` and `maxThrottleWaitSeconds`; a database
 * that cannot be reached, or stays throttled, throws `StoreUnavailableError` (the service
 * answers 503, with `Retry-After` when Cosmos DB gave one).
 * @module
 */
import type { Agent } from "node:http";
import { CosmosClient, type Database } from "@azure/cosmos";
import type { Store } from "formwork/ports";
import { ContainerHandle } from "./container.ts";
import { serviceOrderFields } from "./indexing-policy.ts";
import { CosmosStore } from "./store.ts";

export { indexingPolicyFor, serviceOrderFields, unindexedPaths } from "./indexing-policy.ts";

/** Options of {@link createCosmosStore}: a database to use, or what to connect with. */
export interface CosmosStoreOptions {
  /** An existing database handle; its client's settings apply and `close` leaves it open. */
  database?: Database;
  /** An existing client, with `databaseId`; `close` leaves it open. */
  client?: CosmosClient;
  /** The account endpoint, e.g. `https://<account>.documents.azure.com:443/`, with `key`. */
  endpoint?: string;
  /** The account key, with `endpoint`. */
  key?: string;
  /** The database id, with `client` or `endpoint`. */
  databaseId?: string;
  /** The container holding every record. @default "formwork" */
  containerId?: string;
  /**
   * Create the database and the container, with the partition key and indexing policy this
   * store needs, on first use when they are missing. An existing container is used as is.
   * @default false
   */
  createIfMissing?: boolean;
  /**
   * Throughput (RU/s) of a container this store creates; leave it out for serverless
   * accounts or for throughput shared at the database level. @default undefined
   */
  throughput?: number;
  /**
   * Fields that queries order by; each gets composite indexes in a container this store
   * creates. The service's own are {@link serviceOrderFields}. @default serviceOrderFields
   */
  orderFields?: readonly string[];
  /** With `endpoint`: how long one request may take before it fails. @default 10000 */
  requestTimeoutMs?: number;
  /** With `endpoint`: how often one request throttled with 429 is retried. @default 9 */
  maxThrottleRetries?: number;
  /** With `endpoint`: the longest a request waits across its 429 retries. @default 30 */
  maxThrottleWaitSeconds?: number;
  /**
   * With `endpoint`: let the SDK read the account's regions and fail over between them.
   * Turn it off for a single-region account or the emulator, which then costs no account
   * read before the first request. @default true
   */
  endpointDiscovery?: boolean;
  /**
   * With `endpoint`: the HTTP agent, e.g. one that accepts the emulator's self-signed
   * certificate in tests. @default the SDK's own
   */
  agent?: Agent;
  /**
   * Milliseconds between two runs of the background recovery, which finishes the
   * multi-record writes that a crashed instance left committed but unfinished (README.md,
   * "Crash-exact writes"). It starts with the store's first call and stops at `close`; 0
   * runs none (then another instance's recovery must). @default 10000
   */
  recoveryIntervalMs?: number;
  /**
   * How old (milliseconds, by the writer's clock) an unfinished write must be before
   * recovery finishes it: longer than a write takes, plus the clock skew between instances.
   * Finishing one too early is harmless (both finish it), only wasted. @default 10000
   */
  intentGraceMs?: number;
  /** Told when a background recovery run fails; it runs again after the interval. */
  onRecoveryError?: (error: unknown) => void;
}

/**
 * Creates a Cosmos DB store. Does no I/O until the first call.
 * @throws {TypeError} unless exactly one of `database`, `client` + `databaseId` or
 *   `endpoint` + `key` + `databaseId` is given
 */
export function createCosmosStore(options: CosmosStoreOptions): Store {
  const { database, release } = openDatabase(options);
  const container = new ContainerHandle({
    database,
    containerId: options.containerId ?? "formwork",
    createIfMissing: options.createIfMissing ?? false,
    orderFields: options.orderFields ?? serviceOrderFields,
    throughput: options.throughput,
  });
  return new CosmosStore(container, release, {
    intervalMs: options.recoveryIntervalMs ?? 10_000,
    graceMs: options.intentGraceMs ?? 10_000,
    onError: options.onRecoveryError ?? (() => {}),
  });
}

function openDatabase(options: CosmosStoreOptions): { database: Database; release: () => void } {
  const sources = [options.database, options.client, options.endpoint].filter(Boolean).length;
  if (sources !== 1) {
    throw new TypeError("cosmos store: give exactly one of database, client or endpoint");
  }
  if (options.database) return { database: options.database, release: () => {} };
  const databaseId = options.databaseId;
  if (!databaseId) throw new TypeError("cosmos store: databaseId is required");
  if (options.client) return { database: options.client.database(databaseId), release: () => {} };
  if (!options.key) throw new TypeError("cosmos store: key is required with endpoint");
  const client = new CosmosClient({
    endpoint: options.endpoint,
    key: options.key,
    agent: options.agent,
    connectionPolicy: {
      enableEndpointDiscovery: options.endpointDiscovery ?? true,
      requestTimeout: options.requestTimeoutMs ?? 10_000,
      retryOptions: {
        maxRetryAttemptCount: options.maxThrottleRetries ?? 9,
        maxWaitTimeInSeconds: options.maxThrottleWaitSeconds ?? 30,
      },
    },
  });
  return { database: client.database(databaseId), release: () => client.dispose() };
}
