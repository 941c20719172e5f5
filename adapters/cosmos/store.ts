import type { Container, FeedResponse, ItemResponse, RequestOptions } from "@azure/cosmos";
import {
  type BatchOp,
  type Page,
  type PatchOp,
  type Query,
  type ScanOptions,
  type ScanPage,
  type Store,
  StoreConflictError,
  StoreContinuationError,
  type Stored,
  type StoreRecord,
  type WriteOptions,
} from "formwork/ports";
import { checkBatch, defaultScanLimit } from "formwork/ports/kit";
import { patchConditionOf, patchOperationsOf, writeBatch } from "./batch.ts";
import type { ContainerHandle } from "./container.ts";
import { unwrapContinuation, wrapContinuation } from "./continuation.ts";
import {
  collectionField,
  type Item,
  itemIdOf,
  itemOf,
  partitionKeyField,
  placeOf,
  storedOf,
} from "./documents.ts";
import { cosmosError, isItemNotFound, statusOf, translate } from "./errors.ts";
import { type IntentItem, recoverIntents, removeIntent } from "./intents.ts";
import { deleteAllItems } from "./partition-delete.ts";
import { withoutQueryPlan } from "./query-plan.ts";
import { querySpecOf, scanSpec } from "./query-spec.ts";
import { retryRead } from "./read-retry.ts";

/** Items a query without a limit asks for per request. */
const unlimitedPageSize = 1000;

/** How the store finishes the multi-record writes a crash cut (intents.ts). */
export interface RecoverySettings {
  /** Milliseconds between two recovery runs; 0 runs none. */
  intervalMs: number;
  /** How old an intent must be before recovery finishes it. */
  graceMs: number;
  /** Told of a recovery run that failed (it runs again after the interval). */
  onError(error: unknown): void;
}

/** The Cosmos DB `Store`; see `index.ts` for its layout and guarantees. */
export class CosmosStore implements Store {
  /** Intents being removed after their batch; `close` waits for them. */
  readonly #forgetting = new Set<Promise<void>>();
  #recovery: NodeJS.Timeout | undefined;
  #recovering: Promise<unknown> | undefined;
  #closed = false;

  constructor(
    private readonly container: ContainerHandle,
    private readonly release: () => void,
    private readonly recovery: RecoverySettings,
  ) {}

  async get<T extends StoreRecord>(collection: string, partition: string, id: string) {
    const { pk } = placeOf(collection, partition);
    return this.#call("get", async (c): Promise<Stored<T> | null> => {
      const response = await retryRead(() => c.item(itemIdOf(collection, id), pk).read<Item>());
      if (response.statusCode === 404) return checkedMissing(response, null);
      return storedOf<T>(response.resource);
    });
  }

  async create<T extends StoreRecord>(collection: string, partition: string, record: T) {
    const item = itemOf(record, placeOf(collection, partition));
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
    const place = placeOf(collection, partition);
    const item = itemOf(record, place);
    return this.#call("replace", async (c): Promise<Stored<T> | null> => {
      try {
        const response = await c.item(item.id, place.pk).replace(item, ifMatch(options));
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
    const { pk } = placeOf(op.collection, op.partition);
    const operations = patchOperationsOf(op);
    const condition = patchConditionOf(op);
    return this.#call("patch", async (c): Promise<Stored<StoreRecord> | null> => {
      try {
        const response = await c
          .item(itemIdOf(op.collection, op.id), pk)
          .patch<Item>({ operations, condition });
        return storedOf(response.resource);
      } catch (error) {
        if (isItemNotFound(error)) return null;
        throw error;
      }
    });
  }

  async delete(collection: string, partition: string, id: string, options?: WriteOptions) {
    const { pk } = placeOf(collection, partition);
    return this.#call("delete", async (c) => {
      try {
        await c.item(itemIdOf(collection, id), pk).delete(ifMatch(options));
        return true;
      } catch (error) {
        if (isItemNotFound(error)) return false;
        throw error;
      }
    });
  }

  async query<T extends StoreRecord>(collection: string, partition: string, query: Query = {}) {
    const place = placeOf(collection, partition);
    const pk = place.pk;
    const spec = querySpecOf(place, query);
    const start = query.continuation ? unwrapContinuation(query.continuation, spec) : undefined;
    const limit = query.limit ?? Number.POSITIVE_INFINITY;
    return this.#call("query", async (c): Promise<Page<T>> => {
      const { items, token } = await readUpTo(limit, start, (maxItemCount, continuationToken) =>
        withoutQueryPlan(
          c.items.query<Item>(spec, { partitionKey: pk, maxItemCount, continuationToken }),
        ).fetchNext(),
      );
      return {
        items: items.map((item) => storedOf<T>(item)),
        continuation: token ? wrapContinuation(token, spec) : null,
      };
    });
  }

  /**
   * One query across partition keys of every item whose collection is a record's (not an
   * intent's or a marker's), paged by the SDK's continuation. Each item names its partition
   * (`pk`) and collection (`coll`), so the scan needs nothing else.
   */
  async scan(options: ScanOptions = {}): Promise<ScanPage> {
    const limit = options.limit ?? defaultScanLimit;
    if (!Number.isInteger(limit) || limit < 1) {
      throw new RangeError(`cosmos store: scan limit must be a positive integer, not ${limit}`);
    }
    const spec = scanSpec;
    const start = options.continuation ? unwrapContinuation(options.continuation, spec) : undefined;
    return this.#call("scan", async (c): Promise<ScanPage> => {
      const { items, token } = await readUpTo(limit, start, (maxItemCount, continuationToken) =>
        c.items.query<Item>(spec, { maxItemCount, continuationToken }).fetchNext(),
      );
      return {
        items: items.map((item) => ({
          collection: String(item[collectionField]),
          partition: String(item[partitionKeyField]),
          ...storedOf(item),
        })),
        continuation: token ? wrapContinuation(token, spec) : null,
      };
    });
  }

  /**
   * Crash-exact (batch.ts): one transactional batch when every op shares a partition key;
   * else the conditional ops' partition key with an intent as one, the creates elsewhere
   * after it, finished by recovery after a crash; op by op with undo only when conditional
   * ops span partition keys.
   */
  async batch(ops: readonly BatchOp[]) {
    checkBatch(ops);
    if (ops.length === 0) return [];
    const writer = { store: this, forget: this.#forget, now: Date.now };
    return this.#call("batch", (c) => writeBatch(c, ops, writer));
  }

  async deletePartition(collection: string, partition: string) {
    const place = placeOf(collection, partition);
    return this.#call("deletePartition", (c) => deleteAllItems(c, place));
  }

  /**
   * Finishes now the intents older than the grace period that crashes left (intents.ts), as
   * the background recovery does every `intervalMs`.
   * @returns how many it finished
   */
  async recover(): Promise<number> {
    const now = Date.now();
    return this.#call("recovery", (c) => recoverIntents(c, now - this.recovery.graceMs, now));
  }

  async close() {
    this.#closed = true;
    clearTimeout(this.#recovery);
    await this.#recovering;
    await Promise.allSettled(this.#forgetting);
    this.release();
  }

  readonly #forget = (intent: IntentItem) => {
    const removing = this.container
      .get()
      .then((c) => removeIntent(c, intent))
      // Left for recovery, which finds the intent and its creates written.
      .catch(() => {})
      .finally(() => this.#forgetting.delete(removing));
    this.#forgetting.add(removing);
  };

  /** Runs recovery every `intervalMs` from the first call on, until `close`. */
  #scheduleRecovery() {
    if (this.#closed || this.recovery.intervalMs <= 0) return;
    this.#recovery = setTimeout(() => {
      this.#recovering = this.recover()
        .catch((error: unknown) => this.recovery.onError(error))
        .finally(() => {
          this.#recovering = undefined;
          this.#scheduleRecovery();
        });
    }, this.recovery.intervalMs);
    this.#recovery.unref();
  }

  /** Runs one operation on the container, turning SDK failures into the port's errors. */
  async #call<T>(what: string, operation: (container: Container) => Promise<T>): Promise<T> {
    if (!this.#recovery) this.#scheduleRecovery();
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

/**
 * Reads pages of a query from `token` on until `limit` items or the end: Cosmos DB may answer
 * a page with fewer items than asked while more remain. Each page is a read retried as
 * `retryRead` retries; a token Cosmos DB no longer accepts (one the store issued before the
 * container changed) is a {@link StoreContinuationError}.
 */
async function readUpTo(
  limit: number,
  token: string | undefined,
  fetchPage: (maxItemCount: number, token: string | undefined) => Promise<FeedResponse<Item>>,
): Promise<{ items: Item[]; token: string | undefined }> {
  const items: Item[] = [];
  let next = token;
  do {
    const maxItemCount = Math.min(limit - items.length, unlimitedPageSize);
    const asked = next;
    const page = await retryRead(() => fetchPage(maxItemCount, asked)).catch((error: unknown) => {
      if (asked && statusOf(error) === 400) {
        throw new StoreContinuationError(undefined, { cause: error });
      }
      throw error;
    });
    items.push(...page.resources);
    next = page.continuationToken || undefined;
  } while (next && items.length < limit);
  return { items, token: next };
}
