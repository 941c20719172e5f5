/**
 * Every query the service issues, by collection: what an adapter must answer, and all it
 * needs to prepare for (indexes, query plans). A test runs the HTTP suites over a store that
 * refuses any query outside this list, so it stays complete.
 */
import type { Condition, Query } from "./store.ts";

/** The operators of {@link Condition}. */
export type ConditionOp = Condition["op"];

/** One shape of query the service issues on a collection. */
export interface QueryShape {
  /**
   * The condition fields a query of this shape may hold, each with the operators used on
   * it; a query holds any subset of them (none: the whole partition). @default none
   */
  where?: Readonly<Record<string, readonly ConditionOp[]>>;
  /** The field it orders by, in either direction; ties by `id`. @default "id" */
  orderBy?: string;
  /** Who issues it (the interface's endpoint ids, or the background job). */
  usedBy: string;
}

/** The queries of the service, per collection (the names the service stores under). */
export const serviceQueries: Readonly<Record<string, readonly QueryShape[]>> = {
  submissions: [
    {
      where: { search_words: ["contains"], created_date_utc: ["gte", "lte"] },
      orderBy: "created_date_utc",
      usedBy: "S5 list submissions, submission export",
    },
    {
      where: { created_date_utc: ["lt"] },
      orderBy: "created_date_utc",
      usedBy: "the retention sweep (submissions past the form's retention)",
    },
    {
      usedBy: "an erasure or access request by respondent, a form's first (the index's backfill)",
    },
  ],
  attachments: [{ usedBy: "F3 delete a form (its files' bytes, for the quota)" }],
  form_users: [
    { usedBy: "every form request (the caller's roles), F3" },
    { orderBy: "created_date_utc", usedBy: "U1 list form users" },
  ],
  webhooks: [
    { usedBy: "form snapshots (S2's webhooks), F3" },
    { orderBy: "created_date_utc", usedBy: "W1 list webhooks" },
  ],
  webhook_deliveries: [
    { orderBy: "created_date_utc", usedBy: "a webhook's deliveries (extension)" },
    {
      where: { submission_id: ["eq"] },
      usedBy: "S7, an erasure: the deleted submission's deliveries (extension)",
    },
  ],
  respondent_index: [
    { where: { key: ["eq"] }, usedBy: "an erasure or access request by respondent (extension)" },
  ],
  webhook_outbox: [{ where: { due_at: ["lte"] }, orderBy: "due_at", usedBy: "the webhook worker" }],
  datalists: [{ orderBy: "created_date_utc", usedBy: "D4 list datalists" }],
  datalist_entries: [
    { where: { entry_value: ["eq"] }, usedBy: "S2, S6: a chosen value is in its datalist" },
    { orderBy: "sort_order", usedBy: "D5 (the last sort order), D7 list entries" },
  ],
  memberships: [{ usedBy: "F4 list my forms" }],
  customers: [{ orderBy: "created_date_utc", usedBy: "P3 list customers" }],
  local_accounts: [{ orderBy: "created_date_utc", usedBy: "admin API: list accounts" }],
  account_tokens: [{ orderBy: "created_date_utc", usedBy: "admin API: list an account's tokens" }],
  attachment_uploads: [{ usedBy: "the attachment sweep" }],
  service_state: [{ usedBy: "the sweep (notes of form deletions, erasure jobs)" }],
  idempotency_keys: [
    { where: { created_at: ["lt"] }, usedBy: "the sweep of expired idempotency keys" },
  ],
  idempotency_notes: [{ usedBy: "the sweep of expired idempotency keys" }],
  retention_forms: [{ usedBy: "the retention sweep (the forms that have a retention)" }],
  audit_entries: [
    { orderBy: "at", usedBy: "a form's audit trail, newest first (extension)" },
    { where: { at: ["lt"] }, usedBy: "the sweep of audit entries past their retention" },
  ],
  audit_months: [{ usedBy: "the sweep of audit entries past their retention" }],
  payment_notes: [{ usedBy: "the sweep of payments still pending past their checkout's expiry" }],
};

/** Whether `query` on `collection` has one of the shapes of {@link serviceQueries}. */
export function isServiceQuery(collection: string, query: Query = {}): boolean {
  const orderBy = query.orderBy?.field ?? "id";
  return (serviceQueries[collection] ?? []).some(
    (shape) =>
      (shape.orderBy ?? "id") === orderBy &&
      (query.where ?? []).every((condition) =>
        shape.where?.[condition.field]?.includes(condition.op),
      ),
  );
}

/**
 * The fields `queries` order by, `id` aside, each once (on Cosmos DB each needs composite
 * indexes with `id`).
 */
export function orderFieldsOf(queries: Readonly<Record<string, readonly QueryShape[]>>): string[] {
  const fields = Object.values(queries).flatMap((shapes) =>
    shapes.flatMap((shape) => (shape.orderBy && shape.orderBy !== "id" ? [shape.orderBy] : [])),
  );
  return [...new Set(fields)];
}

/** The fields `queries` put conditions on, each once. */
export function conditionFieldsOf(
  queries: Readonly<Record<string, readonly QueryShape[]>>,
): string[] {
  const fields = Object.values(queries).flatMap((shapes) =>
    shapes.flatMap((shape) => Object.keys(shape.where ?? {})),
  );
  return [...new Set(fields)];
}
