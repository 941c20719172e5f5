import type { QueryIterator } from "@azure/cosmos";
import { cosmosError } from "./errors.ts";

/**
 * Keeps the SDK from asking the gateway for a query plan before a query: every query of this
 * store names its logical partition (the port has no other kind, and every shape in
 * `serviceQueries` is one filter and one order over one partition), which the gateway runs
 * (ORDER BY and continuation included) without one. The SDK (4.9) starts a plan request on every `fetchNext` unless its
 * private `queryPlanPromise` is already set; it awaits that promise only when the gateway
 * answers that the query needs a plan, which a single-partition query never gets, and then
 * it fails with the error set here rather than running without one. One request less per
 * query page.
 */
export function withoutQueryPlan<T>(iterator: QueryIterator<T>): QueryIterator<T> {
  (iterator as unknown as { queryPlanPromise: unknown }).queryPlanPromise = Promise.resolve(
    cosmosError("a single-partition query was refused without a query plan"),
  );
  return iterator;
}
