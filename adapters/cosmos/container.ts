/** Finding, and on request creating, the one container that holds every record. */
import type { Container, Database } from "@azure/cosmos";
import { partitionKeyField } from "./documents.ts";
import { translate } from "./errors.ts";
import { indexingPolicyFor } from "./indexing-policy.ts";

/** What {@link ContainerHandle} needs to know. */
export interface ContainerSettings {
  database: Database;
  containerId: string;
  createIfMissing: boolean;
  orderFields: readonly string[];
  /** Throughput of a container this store creates; undefined for serverless accounts. */
  throughput: number | undefined;
}

/**
 * The store's container, opened once. Without `createIfMissing` this does no I/O: the first
 * operation on a missing container fails with Cosmos DB's own 404. With it, the first call
 * creates the database and the container (partition key `/pk`, the indexing policy of
 * `indexing-policy.ts`) unless they exist; a failed attempt is retried by the next call.
 */
export class ContainerHandle {
  #ready: Promise<Container> | undefined;

  constructor(private readonly settings: ContainerSettings) {}

  /** The container, created first when the settings ask for it. */
  get(): Promise<Container> {
    this.#ready ??= this.#open().catch((error: unknown) => {
      this.#ready = undefined;
      throw translate("opening the container", error);
    });
    return this.#ready;
  }

  async #open(): Promise<Container> {
    const { database, containerId, createIfMissing, orderFields, throughput } = this.settings;
    if (!createIfMissing) return database.container(containerId);
    await database.client.databases.createIfNotExists({ id: database.id });
    const { container } = await database.containers.createIfNotExists({
      id: containerId,
      partitionKey: { paths: [`/${partitionKeyField}`] },
      indexingPolicy: indexingPolicyFor(orderFields),
      ...(throughput === undefined ? {} : { throughput }),
    });
    return container;
  }
}
