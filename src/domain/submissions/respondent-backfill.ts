import { type BatchOp, type Page, StoreConflictError, type Stored } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { collections } from "../records/collections.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import { respondentIndexOps, respondentKeysOf, withRespondentKeys } from "./respondent-index.ts";

/**
 * The respondent index's backfill (docs/design.md §6): submissions stored before the index
 * existed hold no `respondent_keys` and have no index records, so an erasure or access
 * request would miss them. Before either looks a key up on a form, it makes sure the form is
 * indexed: a marker record says it is; without one, one pass over the form's submissions
 * keys each one that holds addresses, then the marker is written. Each submission is keyed
 * by one batch (its replace on the etag read, and the creates of its index records), so a
 * change or deletion meanwhile, or another instance doing the same, fails the batch whole
 * and the submission is read again.
 */

/** Where the markers of indexed forms are kept, in `service_state`; id: the form id. */
export const indexedFormsPartition = "respondents-indexed";

/** The submissions one page of the backfill reads. */
const backfillPageSize = 100;

/** The marker of a form whose submissions are all indexed. Partition: `respondents-indexed`. */
interface IndexedFormMarker {
  /** The form id. */
  id: string;
  indexed_date_utc: string;
}

/**
 * Makes sure every submission of `form` holding an address is in the respondent index: one
 * point read when its marker is there; otherwise the backfill, then the marker. Idempotent,
 * and safe to run from two instances at once.
 */
export async function ensureRespondentIndex(ctx: Context, form: FormRecord): Promise<void> {
  if (await ctx.store.get(collections.serviceState, indexedFormsPartition, form.id)) return;
  let continuation: string | null = null;
  do {
    const page: Page<SubmissionRecord> = await ctx.store.query<SubmissionRecord>(
      collections.submissions,
      form.id,
      {
        limit: backfillPageSize,
        continuation,
      },
    );
    for (const stored of page.items) await keySubmission(ctx, form, stored);
    continuation = page.continuation;
  } while (continuation);
  const marker: IndexedFormMarker = { id: form.id, indexed_date_utc: ctx.now().toISOString() };
  try {
    await ctx.store.create(collections.serviceState, indexedFormsPartition, marker);
  } catch (error) {
    // Another instance finished the same backfill first.
    if (!(error instanceof StoreConflictError && error.reason === "exists")) throw error;
  }
}

/**
 * Gives `stored` its keys and index records unless it has its keys already, holds no address,
 * or is gone; a conflict reads it again and decides again.
 */
async function keySubmission(ctx: Context, form: FormRecord, first: Stored<SubmissionRecord>) {
  let stored: Stored<SubmissionRecord> | null = first;
  let strayRecords = false;
  while (stored && !stored.record.respondent_keys) {
    const { record, etag }: Stored<SubmissionRecord> = stored;
    const keys = respondentKeysOf(form, record.form_fields);
    if (keys.length === 0) return;
    const ops: BatchOp[] = [
      {
        op: "replace",
        collection: collections.submissions,
        partition: form.id,
        record: withRespondentKeys(record, keys),
        ifMatch: etag,
        previous: record,
      },
      ...(await missingCreates(
        ctx,
        respondentIndexOps(form.id, record.id, [], keys),
        strayRecords,
      )),
    ];
    try {
      await ctx.store.batch(ops);
      return;
    } catch (error) {
      if (!(error instanceof StoreConflictError)) throw error;
      stored = await ctx.store.get<SubmissionRecord>(collections.submissions, form.id, record.id);
      // Unchanged, so an index record was there already (none should be): a second attempt
      // creates only those missing, and a third does not come.
      if (stored?.etag === etag) {
        if (strayRecords) throw error;
        strayRecords = true;
      }
    }
  }
}

/** `creates`, or when `check`, those of them whose record is not there. */
async function missingCreates(ctx: Context, creates: BatchOp[], check: boolean) {
  if (!check) return creates;
  const missing: BatchOp[] = [];
  for (const op of creates) {
    if (op.op !== "create") continue;
    if (!(await ctx.store.get(op.collection, op.partition, op.record.id))) missing.push(op);
  }
  return missing;
}
