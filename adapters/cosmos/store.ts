import type { Container, ItemResponse, PatchOperation, RequestOptions } from "@azure/cosmos";
import {
  type BatchOp,
  checkBatch,
  type Page,
  type PatchOp,
  type Query,
  type Store,
  StoreConflictError,
  StoreContinuationError,
  type Stored,
  type StoreRecord,
  type WriteOptions,
} from "formwork/ports";
import { batchInOrder, sharesPartitionKey, transactionalBatch } from "./batch.ts";
import type { ContainerHandle } from "./container.ts";
import { unwrapContinuation, wrapContinuation } from "./continuation.ts";
import {
  type Item,
  itemIdOf,
  itemOf,
  keyFieldRefused,
  partitionKeyField,
  partitionKeyOf,
  storedOf,
} from "./documents.ts";
import { cosmosError, isItemNotFound, statusOf, translate } from "./errors.ts";
import { deleteAllItems } from "./partition-delete.ts";
import { withoutQueryPlan } from "./query-plan.ts";
import { querySpecOf } from "./query-spec.ts";
import { retryRead } from "./read-retry.ts";

/** Items a query without a limit asks for per request. */
const unlimitedPageSize = 1000;

/** The Cosmos DB `Store`; see `index.ts` for its layout and guarantees. */
export class CosmosStore implements Store {
  constructor(
    private readonly container: ContainerHandle,
    private readonly release: () => void,
    private readonly transactional = true,
  ) {}

  async get<T extends StoreRecord>(collection: string, partition: string, id: string) {
    const pk = partitionKeyOf(collection, partition);
    return this.#call("get", async (c): Promise<Stored<T> | null> => {
      const response = await retryRead(() => c.item(itemIdOf(id), pk).read<Item>());
      if (response.statusCode === 404) return checkedMissing(response, null);
      return storedOf<T>(response.resource);
    });
  }

  async create<T extends StoreRecord>(collection: string, partition: string, record: T) {
    const item = itemOf(record, partitionKeyOf(collection, partition));
    return this.#call("create", async (c) =>
      storedOf<T>((await c.items.create(item, noGeneratedIds)).resource),
    );
  }

  async replace<T extends StoreRecord>(
    collection: string,
    partition: string,
    record: T,
    options?: WriteOptions,
  ) {
    const pk = partitionKeyOf(collection, partition);
    const item = itemOf(record, pk);
    return this.#call("replace", async (c): Promise<Stored<T> | null> => {
      try {
        const response = await c.item(item.id, pk).replace(item, ifMatch(options));
        return storedOf<T>(response.resource);
      } catch (error) {
        if (isItemNotFound(error)) return null;
        throw error;
      }
    });
  }

  /**
   * A batch's patch op alone (`batchInOrder`): one Cosmos DB patch, conditional on the
   * token by the patch's SQL condition, that sets the op's fields and removes the token.
   */
  async patch(op: PatchOp): Promise<Stored<StoreRecord> | null> {
    const pk = partitionKeyOf(op.collection, op.partition);
    const { field, value } = op.token;
    if (field === partitionKeyField || Object.hasOwn(op.set, partitionKeyField)) {
      throw keyFieldRefused();
    }
    const operations: PatchOperation[] = Object.entries(op.set).map(([name, set]) => ({
      op: "set",
      path: `/${name}`,
      value: set,
    }));
    operations.push({ op: "remove", path: `/${field}` });
    // The field is a plain name and the token lowercase letters, digits and hyphens
    // (checkBatch), so both go in as they are; the tests' stand-in lowercases a condition.
    const condition = `from c where c.${field} = "${value}"`;
    return this.#call("patch", async (c): Promise<Stored<StoreRecord> | null> => {
      try {
        const response = await c.item(itemIdOf(op.id), pk).patch<Item>({ operations, condition });
        return storedOf(response.resource);
      } catch (error) {
        if (isItemNotFound(error)) return null;
        throw error;
      }
    });
  }

  async delete(collection: string, partition: string, id: string, options?: WriteOptions) {
    const pk = partitionKeyOf(collection, partition);
    return this.#call("delete", async (c) => {
      try {
        await c.item(itemIdOf(id), pk).delete(ifMatch(options));
        return true;
      } catch (error) {
        if (isItemNotFound(error)) return false;
        throw error;
      }
    });
  }

  async query<T extends StoreRecord>(collection: string, partition: string, query: Query = {}) {
    const pk = partitionKeyOf(collection, partition);
    const spec = querySpecOf(pk, query);
    let token = query.continuation ? unwrapContinuation(query.continuation, spec) : undefined;
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    return this.#call("query", async (c): Promise<Page<T>> => {
      const items: Item[] = [];
      // Cosmos DB may answer a page with fewer items than asked while more remain.
      do {
        const maxItemCount = Math.min(limit - items.length, unlimitedPageSize);
        const options = { partitionKey: pk, maxItemCount, continuationToken: token };
        const page = await retryRead(() =>
          withoutQueryPlan(c.items.query<Item>(spec, options)).fetchNext(),
        ).catch((error: unknown) => {
          // A token the store issued but Cosmos DB no longer accepts (a changed container).
          if (token && statusOf(error) === 400) {
            throw new StoreContinuationError(undefined, { cause: error });
          }
          throw error;
        });
        items.push(...page.resources);
        token = page.continuationToken || undefined;
      } while (token && items.length < limit);
      return {
        items: items.map((item) => storedOf<T>(item)),
        continuation: token ? wrapContinuation(token, spec) : null,
      };
    });
  }

  /**
   * One transactional batch when every op shares a partition key; otherwise op by op, the
   * applied ops undone when one fails (not atomic across a crash: see the Store port).
   */
  async batch(ops: readonly BatchOp[]) {
    checkBatch(ops);
    if (ops.length === 0) return [];
    if (this.transactional && sharesPartitionKey(ops))
      return this.#call("batch", (c) => transactionalBatch(c, ops));
    return batchInOrder(this, ops);
  }

  async deletePartition(collection: string, partition: string) {
    const pk = partitionKeyOf(collection, partition);
    return this.#call("deletePartition", (c) => deleteAllItems(c, pk));
  }

  async close() {
    this.release();
  }

  /** Runs one operation on the container, turning SDK failures into the port's errors. */
  async #call<T>(what: string, operation: (container: Container) => Promise<T>): Promise<T> {
    const container = await this.container.get();
    try {
      return await operation(container);
    } catch (error) {
      if (error instanceof StoreContinuationError || error instanceof StoreConflictError) {
        throw error;
      }
      throw translate(what, error);
    }
  }
}

const noGeneratedIds = { disableAutomaticIdGeneration: true };

function ifMatch(options: WriteOptions | undefined): RequestOptions | undefined {
  return options?.ifMatch === undefined
    ? undefined
    : { accessCondition: { type: "IfMatch", condition: options.ifMatch } };
}

/**
 * A 404 on a point read means "no such item" unless its sub-status says the container itself
 * is missing (1003), which is a misconfiguration and no "not found".
 */
function checkedMissing<T>(response: ItemResponse<Item>, missing: T): T {
  if (response.substatus === 1003) throw cosmosError("the container does not exist");
  return missing;
}
