/**
 * The retention sweep (docs/design.md §15): deletes the submissions older than their form's
 * `securitysettings.submission_retention_days`, each as S7 deletes one.
 */
import { NotFoundError } from "../../kernel/errors.ts";
import { StoreConflictError, type Stored } from "../../ports/store.ts";
import { systemSource } from "../audit/index.ts";
import type { Context } from "../context.ts";
import { readForm } from "../forms/form-access.ts";
import type { FormRecord } from "../forms/form-record.ts";
import {
  type RetentionEntry,
  registrationGraceMs,
  retentionEntries,
  retentionPartition,
} from "../forms/form-retention.ts";
import { collections } from "../records/collections.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import { retentionDaysOf } from "../settings/sections/security.ts";
import { deleteSubmission } from "./submission-delete.ts";

/** The most submissions one run deletes of one form; the next run goes on from there. */
export const retentionDeletesPerRun = 1000;

const pageSize = 100;
const dayMs = 24 * 60 * 60 * 1000;

/**
 * Works through the registry of forms with a retention (`retention_forms`, so that it never
 * scans forms), and in each deletes the submissions created before now minus its days,
 * oldest first, a page of 100 at a time and at most {@link retentionDeletesPerRun} a run.
 * Each goes in its own S7 batch (its slot, inventory, files and bytes given back, its
 * `form_submission.deleted` webhooks queued), taking its turn on the form's counter with the
 * form's S2s, and the sweep yields to the event loop between two, so a post to the form
 * waits at most one turn. Entries of forms that lost their retention or are gone are
 * dropped. Several instances may sweep at once: a submission deleted twice is deleted once.
 * @returns how many submissions it deleted.
 */
export async function sweepRetention(ctx: Context): Promise<number> {
  let removed = 0;
  let continuation: string | null = null;
  do {
    const page = await retentionEntries(ctx, continuation);
    for (const entry of page.items) removed += await sweepForm(ctx, entry);
    continuation = page.continuation;
  } while (continuation);
  return removed;
}

/** Deletes the submissions of one registered form past its retention. */
async function sweepForm(ctx: Context, entry: Stored<RetentionEntry>): Promise<number> {
  const formId = entry.record.form_id;
  const form = (await readForm(ctx, formId))?.form;
  const days = form && retentionDaysOf(form);
  if (!form || !days) {
    await dropEntry(ctx, entry);
    return 0;
  }
  const cutoff = new Date(ctx.now().getTime() - days * dayMs).toISOString();
  let removed = 0;
  let tried = 0;
  while (tried < retentionDeletesPerRun) {
    // From the oldest again each time: the page before is deleted, so no continuation is needed.
    const page = await ctx.store.query<SubmissionRecord>(collections.submissions, formId, {
      where: [{ field: "created_date_utc", op: "lt", value: cutoff }],
      orderBy: { field: "created_date_utc" },
      limit: Math.min(pageSize, retentionDeletesPerRun - tried),
    });
    for (const { record } of page.items) {
      tried += 1;
      const deleted = await removeExpired(ctx, form, record.id);
      // The form was deleted meanwhile, its submissions with it.
      if (deleted === undefined) return removed;
      if (deleted) removed += 1;
      await nextTick();
    }
    if (!page.continuation || page.items.length === 0) break;
  }
  return removed;
}

/**
 * Deletes one submission past its form's retention, as S7 does.
 * @returns whether this call deleted it, `undefined` when the form is gone.
 */
async function removeExpired(
  ctx: Context,
  form: FormRecord,
  submissionId: string,
): Promise<boolean | undefined> {
  try {
    const answer = await deleteSubmission(
      ctx,
      form,
      submissionId,
      systemSource,
      "retention_deleted",
    );
    return answer.form_submission_item_deleted;
  } catch (error) {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  }
}

/**
 * Drops the entry of a form without a retention, once it is older than the grace (the form
 * may be about to be written with one) and on the etag read (a write renewed it since).
 */
async function dropEntry(ctx: Context, { record, etag }: Stored<RetentionEntry>) {
  if (Date.parse(record.registered_at) > ctx.now().getTime() - registrationGraceMs) return;
  try {
    await ctx.store.delete(collections.retentionForms, retentionPartition, record.id, {
      ifMatch: etag,
    });
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error;
  }
}

/** Lets requests and timers run between two deletions, whatever the store's latency. */
function nextTick(): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 0));
}
