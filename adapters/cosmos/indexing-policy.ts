/** The indexing policy the Cosmos DB store needs, and the fields the service orders by. */
import type { IndexingPolicy } from "@azure/cosmos";
import { orderFieldsOf, serviceQueries } from "formwork/ports/kit";

/**
 * The fields the service's own queries order by, taken from `serviceQueries` of the kit
 * (`created_date_utc`, `sort_order`, `due_at` today). Each needs composite indexes on
 * Cosmos DB, since every query orders by its field and then by `id`.
 */
export const serviceOrderFields: readonly string[] = orderFieldsOf(serviceQueries);

/**
 * Paths never filtered or ordered on (a test checks them against `serviceQueries`), left
 * out of the index so that writing a large form definition or a submission's values costs
 * fewer request units.
 */
export const unindexedPaths: readonly string[] = [
  "/form_fields/*",
  "/form_definition/*",
  "/form_configuration/*",
  '/"_etag"/?',
  // An intent's lists (intents.ts): read whole by recovery, never filtered on.
  "/creates/?",
  "/prepared/*",
];

/**
 * The indexing policy of the store's container: every path in the range index except
 * {@link unindexedPaths}, and for each field of `orderFields` the two composite indexes
 * `(field ASC, id ASC)` and `(field DESC, id ASC)` that its ORDER BY needs.
 */
export function indexingPolicyFor(
  orderFields: readonly string[] = serviceOrderFields,
): IndexingPolicy {
  return {
    indexingMode: "consistent",
    automatic: true,
    includedPaths: [{ path: "/*" }],
    excludedPaths: unindexedPaths.map((path) => ({ path })),
    compositeIndexes: orderFields.flatMap((field) => [
      [
        { path: `/${field}`, order: "ascending" as const },
        { path: "/id", order: "ascending" as const },
      ],
      [
        { path: `/${field}`, order: "descending" as const },
        { path: "/id", order: "ascending" as const },
      ],
    ]),
  };
}
