import { NotFoundError, ServiceError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import { createdAt } from "../../kernel/timestamps.ts";
import type { Stored } from "../../ports/store.ts";
import type { Caller } from "../accounts/caller.ts";
import {
  claimedRecord,
  claimOps,
  fileIdsOf,
  readClaimable,
} from "../attachments/attachment-claims.ts";
import { readAttachments, removalOps } from "../attachments/attachment-removal.ts";
import type { SettledUploads } from "../attachments/settled-uploads.ts";
import { unclaimedBytesCount } from "../attachments/unclaimed-uploads.ts";
import { type Context, collections } from "../context.ts";
import type { Device } from "../device.ts";
import { accessFormToSubmit, formNotFound } from "../forms/form-access.ts";
import type { FormRecord } from "../forms/form-record.ts";
import {
  type FormSnapshot,
  formCounter,
  formSnapshot,
  readFormCounter,
  versionOf,
} from "../forms/form-snapshots.ts";
import { batchAgain, batchInTurns } from "../quotas/count-changes.ts";
import { counterOp } from "../quotas/counters.ts";
import { quotaOp } from "../quotas/quotas.ts";
import { compileRules, type FormRules } from "../settings/form-rules.ts";
import { countsAfterPost, inventoryHeld, inventoryTaken } from "../settings/inventory.ts";
import { thanksPageOf } from "../settings/thanks-page.ts";
import { type PlannedActions, planPostSubmissionActions } from "../webhooks/submission-actions.ts";
import { submissionCreatedOps } from "../webhooks/webhook-outbox.ts";
import { searchWordsOf } from "./search-words.ts";
import type { AttachmentRecord, SubmissionRecord, SubmittedField } from "./submission-record.ts";
import { checkSubmittedValues } from "./submission-values.ts";

/** What S2 and S6 take (design.md §4). */
export interface SubmissionInput {
  form_fields: SubmittedField[];
  is_draft_submission?: boolean;
}

interface QuantityLimitSettings {
  max_total_submissions?: number | null;
  closes_at_utc?: string | null;
}

/**
 * S2: stores a submission to a form open to the caller. The form's counter (its submission
 * count and version, form-snapshots.ts) and, for a partner customer's form, the owner's
 * monthly quota counter are read; then the raised counters, the submission, its webhook
 * deliveries and its actions (submission-actions.ts) are written in ONE `Store.batch`,
 * conditional on the counters' etags, and made again from fresh reads when one moved
 * (`batchAgain`). So `max_total_submissions` and the quota hold under concurrent posts, a
 * form changed meanwhile makes the post start over with the new form, and a crash leaves
 * the counts equal to the records (all or nothing; see the Store port for Cosmos DB across
 * partitions). Files are read with the form's checks (or, on the first attempt, taken as
 * this instance settled them: settled-uploads.ts) and claimed in the same batch, each on
 * the etag read, so no claim outlives a failed or cut-short S2; the batch's counter write
 * also takes their bytes off the form's cap on unclaimed uploads (unclaimed-uploads.ts).
 */
export async function createSubmission(
  ctx: Context,
  caller: Caller | null,
  formId: string,
  input: SubmissionInput,
  device: Device,
) {
  const draft = input.is_draft_submission ?? false;
  const id = newId();
  let checked: CheckedPost | undefined;
  let post: { snapshot: FormSnapshot; fresh: boolean; actions: PlannedActions } | undefined;
  // Posts to one form in this process take turns on its counter (counter-turns.ts):
  // otherwise concurrent ones all read one etag and all but one retry.
  await batchInTurns(ctx, formId, async (attempt) => {
    const counter = await readFormCounter(ctx, formId);
    const snapshot = await formSnapshot(ctx, formId, versionOf(counter));
    if (!snapshot) throw formNotFound();
    // Files this instance settled are claimed unread on the first attempt only: a batch that
    // failed may have failed on such a claim, and is made again from reads (settled-uploads.ts).
    const settled = attempt === 1 ? ctx.settledUploads : undefined;
    if (checked?.snapshot !== snapshot) {
      checked = await checkPost(ctx, caller, id, snapshot, input.form_fields, draft, settled);
    } else if (attempt > 1 && checked.claims.length > 0) {
      // The batch may have failed on a claim: a 400 when another submission took a file.
      const { form_definition } = snapshot.form;
      for (const { record } of checked.claims) ctx.settledUploads.delete(record.id);
      checked.claims = await readClaimable(ctx, formId, id, form_definition, checked.values);
    }
    // The whole counts, so that counts other code keeps in this record stay as they were;
    // the post's inventory is taken in the same write (inventory.ts).
    const counts = countsAfterPost(counter?.record.counts ?? {}, checked.rules, checked.taken);
    if ((counts.submissions ?? 0) > checked.limit) {
      throw new ServiceError("form_closed", "This form has received all the submissions it takes");
    }
    const owner = snapshot.form.owner_user_id;
    const monthly = await quotaOp(ctx, owner, "monthly_form_submissions");
    const submission = submissionOf(ctx, snapshot, id, checked, caller, device, draft);
    const actions = planPostSubmissionActions(ctx, snapshot.form, submission);
    const claimedBytes = bytesOf(checked.claims);
    if (claimedBytes > 0) {
      const unclaimed = counts[unclaimedBytesCount] ?? 0;
      counts[unclaimedBytesCount] = Math.max(0, unclaimed - claimedBytes);
    }
    post = { snapshot, fresh: !counter, actions };
    return [
      counterOp(formCounter(formId), counter, counts),
      ...(monthly ? [monthly] : []),
      // The claims in the batch, before the submission and its deliveries: a claim that
      // fails (a file taken meanwhile) undoes only the counters, on Cosmos DB's op-by-op
      // batch; one a crash leaves without its submission is the sweep's to remove.
      ...claimOps(id, checked.claims, submission.created_date_utc),
      {
        op: "create",
        collection: collections.submissions,
        partition: formId,
        record: submission,
      },
      ...(draft ? [] : submissionCreatedOps(ctx, submission, snapshot.webhooks)),
      ...actions.ops,
    ];
  });
  const { snapshot, fresh, actions } = post as NonNullable<typeof post>;
  for (const { record } of checked?.claims ?? []) ctx.settledUploads.delete(record.id);
  // The counter this S2 made holds version 0: no change came between (form-snapshots.ts).
  if (fresh) ctx.formSnapshots.set(formId, 0, snapshot);
  if (!draft && snapshot.webhooks.length > 0) ctx.nudgeWebhooks();
  const flags = await actions.attempt();
  return {
    id,
    message: "Submission posted successfully",
    ...thanksPageOf(snapshot.form),
    cloud_database_post_expected_but_failed: flags.cloud_database_post_expected_but_failed,
    email_address_post_expected_but_failed: flags.email_address_post_expected_but_failed,
    actionSuccessful: true,
  };
}

/** The bytes of the files `claims` holds. */
export function bytesOf(claims: Stored<AttachmentRecord>[]): number {
  return claims.reduce((sum, { record }) => sum + record.file_size, 0);
}

/** A post checked against one snapshot of its form. */
interface CheckedPost {
  snapshot: FormSnapshot;
  values: SubmittedField[];
  /** The form's `max_total_submissions`, or infinity. */
  limit: number;
  /** The files the post names that it is to claim, as read (attachment-claims.ts). */
  claims: Stored<AttachmentRecord>[];
  rules: FormRules;
  /** The inventory counts the post takes (none for a draft). */
  taken: string[];
}

/**
 * Checks a post (to be stored as `submissionId`) against the form as `snapshot` has it, and
 * reads the files it claims.
 */
async function checkPost(
  ctx: Context,
  caller: Caller | null,
  submissionId: string,
  snapshot: FormSnapshot,
  fields: SubmittedField[],
  draft: boolean,
  settled: SettledUploads | undefined,
): Promise<CheckedPost> {
  const formId = snapshot.form.id;
  const { form } = await accessFormToSubmit(ctx, caller, formId, snapshot);
  const limits = (form.form_configuration.quantitylimitsettings ?? {}) as QuantityLimitSettings;
  if (limits.closes_at_utc && Date.parse(limits.closes_at_utc) <= ctx.now().getTime()) {
    throw new ServiceError("form_closed", "This form is closed to new submissions");
  }
  const values = await checkSubmittedValues(ctx, form, fields, draft, snapshot);
  const definition = form.form_definition;
  const claims = await readClaimable(ctx, formId, submissionId, definition, values, settled);
  const rules = compileRules(form);
  const taken = draft ? [] : inventoryTaken(rules, values);
  const limit = limits.max_total_submissions ?? Number.POSITIVE_INFINITY;
  return { snapshot, values, limit, claims, rules, taken };
}

/** The record of a new submission, with the inventory it takes. */
function submissionOf(
  ctx: Context,
  { form }: FormSnapshot,
  id: string,
  { values, taken, claims }: CheckedPost,
  caller: Caller | null,
  device: Device,
  draft: boolean,
): SubmissionRecord {
  const { created_date_utc: at, modified_date_utc } = createdAt(ctx.now());
  return {
    form_id: form.id,
    stale_form_name: form.form_configuration.settings.form_name,
    created_by_verified_email_address: caller?.email ?? "",
    created_by_device: device,
    form_fields: values,
    search_words: searchWordsOf(form.form_definition, values),
    is_draft_submission: draft,
    inventory_taken: taken,
    attachments_held: claims.map(({ record }) => claimedRecord(record, id, at)),
    id,
    created_date_utc: at,
    modified_date_utc,
  };
}

/**
 * S7: deletes a submission and frees its slot and inventory on the form, and deletes its
 * attachment records and gives their bytes back to the owner's storage quota, in one
 * `Store.batch` conditional on everything as read (a crash leaves all or nothing); then
 * deletes their files.
 */
export async function deleteSubmission(ctx: Context, form: FormRecord, submissionId: string) {
  let stored: Stored<SubmissionRecord> | null = await readSubmission(ctx, form.id, submissionId);
  let removed: Stored<AttachmentRecord>[] = [];
  const rules = compileRules(form);
  const written = await batchAgain(ctx, async (attempt) => {
    if (attempt > 1) {
      stored = await ctx.store.get<SubmissionRecord>(
        collections.submissions,
        form.id,
        submissionId,
      );
    }
    // Gone meanwhile: another S7 deleted it and gave everything back.
    if (!stored) return null;
    const counter = await readFormCounter(ctx, form.id);
    const counts: Record<string, number> = { ...counter?.record.counts };
    // What the submission took, not what the current settings imply (inventory.ts).
    for (const name of ["submissions", ...inventoryHeld(rules, stored.record)])
      counts[name] = Math.max(0, (counts[name] ?? 0) - 1);
    const files = fileIdsOf(form.form_definition, stored.record.form_fields);
    removed = await readAttachments(ctx, form.id, submissionId, files);
    return [
      {
        op: "delete",
        collection: collections.submissions,
        partition: form.id,
        id: submissionId,
        ifMatch: stored.etag,
        previous: stored.record,
      },
      counterOp(formCounter(form.id), counter, counts),
      // Its files and the storage they give back go with it: the quota stays equal to the records.
      ...(await removalOps(ctx, form.id, form.owner_user_id, removed, false)),
    ];
  });
  if (written) for (const { record } of removed) await ctx.blobs?.delete(form.id, record.id);
  return {
    message: "Form submission has been deleted successfully",
    form_submission_item_deleted: written !== null,
  };
}

/** Reads a submission of a form. @throws {NotFoundError} when there is none. */
export async function readSubmission(ctx: Context, formId: string, submissionId: string) {
  const stored = await ctx.store.get<SubmissionRecord>(
    collections.submissions,
    formId,
    submissionId,
  );
  if (!stored) throw new NotFoundError("Submission not found");
  return stored;
}
