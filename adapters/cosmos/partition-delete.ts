/**
 * Deleting every record of one collection in one partition key: read the ids page by page,
 * delete in batches.
 */
import type { Container, OperationInput } from "@azure/cosmos";
import { type Place, transactionalBatchLimit } from "./documents.ts";
import { isItemNotFound } from "./errors.ts";
import { withoutQueryPlan } from "./query-plan.ts";
import { idsSpecOf } from "./query-spec.ts";

/**
 * Deletes every item of `place` (one collection's, in one partition key). Each page of ids goes in one transactional
 * batch, one request for up to 100 items instead of one request each; when an item went
 * away meanwhile and failed the batch, the rest are deleted item by item, counting only
 * real deletes.
 * Items written while this runs may or may not be deleted.
 * @returns how many items were deleted.
 */
export async function deleteAllItems(container: Container, place: Place): Promise<number> {
  const pk = place.pk;
  let deleted = 0;
  let continuationToken: string | undefined;
  do {
    const page = await withoutQueryPlan(
      container.items.query<{ id: string }>(idsSpecOf(place), {
        partitionKey: pk,
        maxItemCount: transactionalBatchLimit,
        continuationToken,
      }),
    ).fetchNext();
    const ids = page.resources.map((item) => item.id);
    if (ids.length > 0) deleted += await deleteIds(container, pk, ids);
    continuationToken = page.continuationToken || undefined;
  } while (continuationToken);
  return deleted;
}

async function deleteIds(container: Container, pk: string, ids: string[]): Promise<number> {
  const operations: OperationInput[] = ids.map((id) => ({
    operationType: "Delete",
    id,
    // The batch's own partition key is not enough for every gateway (the emulator reads it
    // per operation); Cosmos DB accepts both.
    partitionKey: pk,
  }));
  const response = await container.items.batch(operations, pk);
  const results = response.result ?? [];
  // A transactional batch stops at the first failing operation (here: an item deleted
  // meanwhile, 404) and answers 424 for the others, which Cosmos DB then did not apply.
  let deleted = 0;
  const again: string[] = [];
  for (const [index, id] of ids.entries()) {
    const status = results[index]?.statusCode ?? 424;
    if (status < 300) deleted++;
    else if (status !== 404) again.push(id);
  }
  const one = async (id: string) => {
    try {
      await container.item(id, pk).delete();
      return 1;
    } catch (error) {
      if (isItemNotFound(error)) return 0;
      throw error;
    }
  };
  const counts: number[] = await Promise.all(again.map(one));
  return counts.reduce((sum, n) => sum + n, deleted);
}
