import { NotFoundError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import { type Page, StoreConflictError } from "../../ports/store.ts";
import type { Caller } from "../accounts/caller.ts";
import { type AuditSource, systemSource } from "../audit/index.ts";
import type { Context } from "../context.ts";
import { readForm } from "../forms/form-access.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { collections } from "../records/collections.ts";
import { ensureRespondentIndex } from "../submissions/respondent-backfill.ts";
import { indexedSubmissions, respondentKeyOf } from "../submissions/respondent-index.ts";
import { purgeDeliveries } from "../webhooks/delivery-purge.ts";
import { respondentForms } from "./respondent-forms.ts";
import { deleteSubmission } from "./submission-delete.ts";

/**
 * Erasure by respondent (docs/design.md §6): every submission of the caller's forms that the
 * respondent index finds for an address is deleted as S7 deletes one, with its files,
 * deliveries and history. The request first writes a job (the address's key, never the
 * address, and the forms), then works a page of the index at a time, one submission at a
 * time, noting each page in the job before deleting it, and deletes the job last. A job a
 * crash cut short is taken up by the sweep once its lease ran out ({@link resumeErasures}),
 * which deletes the noted page again (its deliveries included) and goes on.
 */

/** Where erasure jobs are kept, in `service_state`. */
const erasuresPartition = "erasures";

/**
 * How long a job stays its writer's after its last write: the writer renews it with each page
 * (of 25 submissions, seconds of work). Past it, the sweep may take the job up. Two doing one
 * job do no harm (each deletion happens once), so this only saves work.
 */
export const erasureLeaseMs = 30_000;

/** An erasure in progress. Partition: `erasures`. */
interface ErasureJob {
  id: string;
  /** The respondent's key (respondent-index.ts): a hash, never the address. */
  key: string;
  /** The forms it covers, as the caller reached them when it began. */
  form_ids: string[];
  /** The submissions being deleted now, to delete and purge again when taken up. */
  page?: { form_id: string; submission_ids: string[] };
  /**
   * Who asked for it, for the audit entry of each deletion (docs/design.md §25); absent on
   * jobs written before: `system`.
   */
  source?: AuditSource;
  /** Until when its writer holds it. */
  lease_until: string;
  created_date_utc: string;
}

/** What an erasure deleted on one form. */
interface ErasedForm {
  form_id: string;
  deleted: number;
}

/**
 * `POST /api/restricted/respondents/erase`: deletes the submissions holding `email` in an
 * e-mail field (or the confirmation e-mail's recipient field) across the caller's forms
 * (respondent-forms.ts). Answers how many it deleted, in all and per form (forms with none
 * left out).
 */
export async function eraseRespondent(
  ctx: Context,
  caller: Caller,
  email: string,
  source: AuditSource,
) {
  const forms = (await respondentForms(ctx, caller)).map(({ form }) => form);
  // Before the job, so that its lease covers the deletions alone: a crash here leaves nothing
  // to take up (the request failed), and the next one finds the forms done so far marked.
  for (const form of forms) await ensureRespondentIndex(ctx, form);
  const job: ErasureJob = {
    id: newId(),
    key: respondentKeyOf(email),
    form_ids: forms.map(({ id }) => id),
    source,
    lease_until: leaseEnd(ctx),
    created_date_utc: ctx.now().toISOString(),
  };
  await ctx.store.create(collections.serviceState, erasuresPartition, job);
  const erased = await runErasure(ctx, job, forms);
  await ctx.store.delete(collections.serviceState, erasuresPartition, job.id);
  const results = erased.filter(({ deleted }) => deleted > 0);
  return {
    message: "The respondent's submissions have been deleted",
    action_successful: true,
    deleted: results.reduce((sum, { deleted }) => sum + deleted, 0),
    forms: results,
  };
}

/**
 * Works `job` through its forms (`known` when the caller's request read them), first
 * finishing the page it noted last (a job taken up after a crash).
 */
async function runErasure(
  ctx: Context,
  job: ErasureJob,
  known: readonly FormRecord[] = [],
): Promise<ErasedForm[]> {
  if (job.page) await finishPage(ctx, job, job.page);
  const erased: ErasedForm[] = [];
  for (const formId of job.form_ids) {
    const form = known.find(({ id }) => id === formId) ?? (await formOf(ctx, formId));
    if (!form) continue;
    let deleted = 0;
    let continuation: string | null = null;
    do {
      const page = await indexedSubmissions(ctx, formId, job.key, continuation);
      if (page.ids.length > 0) {
        const noted: ErasureJob = {
          ...job,
          page: { form_id: formId, submission_ids: page.ids },
          lease_until: leaseEnd(ctx),
        };
        await ctx.store.replace(collections.serviceState, erasuresPartition, noted);
        for (const id of page.ids) if (await deleteIfThere(ctx, job, form, id)) deleted++;
      }
      continuation = page.continuation;
    } while (continuation);
    erased.push({ form_id: formId, deleted });
  }
  return erased;
}

/** Deletes a page's submissions that remain, and purges the deliveries of them all. */
async function finishPage(ctx: Context, job: ErasureJob, page: NonNullable<ErasureJob["page"]>) {
  const form = await formOf(ctx, page.form_id);
  // A form that is gone took its submissions and delivery logs with it (form-deletion.ts).
  if (!form) return;
  for (const id of page.submission_ids) {
    // Deleted before the crash, perhaps with its purge cut short.
    if (!(await deleteIfThere(ctx, job, form, id))) await purgeDeliveries(ctx, form.id, id);
  }
}

/**
 * Deletes a submission unless it is gone, recording `respondent_erased` by whoever asked for
 * the job in its batch. @returns whether this call deleted it.
 */
async function deleteIfThere(
  ctx: Context,
  job: ErasureJob,
  form: FormRecord,
  submissionId: string,
) {
  try {
    const source = job.source ?? systemSource;
    const answer = await deleteSubmission(ctx, form, submissionId, source, "respondent_erased");
    return answer.form_submission_item_deleted;
  } catch (error) {
    if (error instanceof NotFoundError) return false;
    throw error;
  }
}

async function formOf(ctx: Context, formId: string): Promise<FormRecord | null> {
  return (await readForm(ctx, formId))?.form ?? null;
}

function leaseEnd(ctx: Context): string {
  return new Date(ctx.now().getTime() + erasureLeaseMs).toISOString();
}

/**
 * Takes up the erasure jobs whose lease ran out (part of the sweep): each is taken on the
 * etag read, so that of two instances one does it, worked to its end and deleted.
 * @returns how many it finished.
 */
export async function resumeErasures(ctx: Context): Promise<number> {
  let finished = 0;
  let continuation: string | null = null;
  do {
    const page: Page<ErasureJob> = await ctx.store.query<ErasureJob>(
      collections.serviceState,
      erasuresPartition,
      {
        limit: 100,
        continuation,
      },
    );
    for (const { record, etag } of page.items) {
      if (record.lease_until > ctx.now().toISOString()) continue;
      const job = { ...record, lease_until: leaseEnd(ctx) };
      try {
        await ctx.store.replace(collections.serviceState, erasuresPartition, job, {
          ifMatch: etag,
        });
      } catch (error) {
        if (error instanceof StoreConflictError) continue;
        throw error;
      }
      // A job written before the backfill existed: its forms may not be indexed.
      for (const formId of job.form_ids) {
        const form = await formOf(ctx, formId);
        if (form) await ensureRespondentIndex(ctx, form);
      }
      await runErasure(ctx, job);
      await ctx.store.delete(collections.serviceState, erasuresPartition, job.id);
      finished++;
    }
    continuation = page.continuation;
  } while (continuation);
  return finished;
}
