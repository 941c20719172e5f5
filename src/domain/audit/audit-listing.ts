import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import type { AuditEntry } from "./audit-entries.ts";

/** A page of the audit trail, as the query string asks for it. */
export interface AuditPageOptions {
  /** Entries per page, 1 to 1000. */
  batchSize: number;
  /** The `continuation_token` of the previous page. */
  continuationToken?: string;
}

/**
 * One page of a form's audit trail, newest first (ties by id): one single-partition query.
 * The caller checks the role (`accessFormToManage`); the trail itself is append-only, and no
 * route changes or deletes an entry.
 */
export async function listAuditEntries(ctx: Context, formId: string, options: AuditPageOptions) {
  const page = await ctx.store.query<AuditEntry>(collections.auditEntries, formId, {
    orderBy: { field: "at", direction: "desc" },
    limit: options.batchSize,
    continuation: options.continuationToken ?? null,
  });
  return { entries: page.items.map(({ record }) => record), continuation_token: page.continuation };
}
