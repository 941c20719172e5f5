import { type Context, collections } from "../context.ts";
import { ValidationError, type ValidationIssue } from "../errors.ts";
import { StoreConflictError, type Stored } from "../ports/store.ts";
import { partnerIdOf } from "./customers.ts";
import { type FormDefinition, fileFieldNames } from "./form-definition.ts";
import type { FormRecord } from "./form-record.ts";
import { giveBackQuota } from "./quotas.ts";
import {
  type AttachmentRecord,
  attachmentIdsOf,
  type SubmittedField,
} from "./submission-record.ts";
import { countUnclaimedBytes, releaseUnclaimedBytes } from "./unclaimed-uploads.ts";

/**
 * Makes the attachments named in the file fields of `fields` the submission's own. Each id
 * must be an attachment of this form, uploaded for that very field, and held by no other
 * submission. The claim is a conditional write, so two submissions racing for one file
 * cannot both get it; a claim that fails takes back the ones made before it.
 * @returns the ids newly claimed (to release if the submission is not stored after all).
 * @throws {ValidationError} naming each field whose ids are not claimable.
 */
export async function claimAttachments(
  ctx: Context,
  formId: string,
  submissionId: string,
  definition: FormDefinition,
  fields: SubmittedField[],
): Promise<string[]> {
  const toClaim = await readClaimable(ctx, formId, submissionId, definition, fields);
  const claimed = await claimRead(ctx, formId, submissionId, toClaim, false);
  for (const { record } of toClaim) await releaseUnclaimedBytes(ctx, formId, record.file_size);
  return claimed;
}

/**
 * The attachments named in the file fields of `fields` that the submission does not hold
 * yet, as read, for {@link claimRead}: the checks of {@link claimAttachments}, without the
 * claims.
 * @throws {ValidationError} naming each field whose ids are not claimable.
 */
export async function readClaimable(
  ctx: Context,
  formId: string,
  submissionId: string,
  definition: FormDefinition,
  fields: SubmittedField[],
): Promise<Stored<AttachmentRecord>[]> {
  const fileFields = fileFieldNames(definition);
  const toClaim: Stored<AttachmentRecord>[] = [];
  const issues: ValidationIssue[] = [];
  for (const field of fields) {
    if (!fileFields.has(field.unique_system_name)) continue;
    for (const id of attachmentIdsOf(field.submitted_value)) {
      const stored = await ctx.store.get<AttachmentRecord>(collections.attachments, formId, id);
      const owner = stored?.record.submission_id;
      const fits = stored?.record.unique_system_name === field.unique_system_name;
      if (!stored || !fits || (owner && owner !== submissionId)) {
        issues.push({
          path: field.unique_system_name,
          message: `${id} is not a file uploaded for this field and waiting for a submission`,
        });
      } else if (!owner) toClaim.push(stored);
    }
  }
  if (issues.length) throw new ValidationError("The submitted files are not valid", issues);
  return toClaim;
}

/**
 * Claims attachments as {@link readClaimable} read them, each by a write conditional on the
 * etag read; when one fails, the ones claimed before are released. The form's count of
 * unclaimed bytes is left to the caller, and a release here does not count them either when
 * `counted` is `false`.
 * @returns the ids claimed.
 * @throws {ValidationError} when another submission took one meanwhile.
 */
export async function claimRead(
  ctx: Context,
  formId: string,
  submissionId: string,
  toClaim: Stored<AttachmentRecord>[],
  counted: boolean,
): Promise<string[]> {
  const claimed: string[] = [];
  for (const { record, etag } of toClaim) {
    try {
      const saved = await ctx.store.replace(
        collections.attachments,
        formId,
        { ...record, submission_id: submissionId, modified_date_utc: ctx.now().toISOString() },
        { ifMatch: etag },
      );
      if (!saved) throw new StoreConflictError("etag");
      claimed.push(record.id);
    } catch (error) {
      await releaseAttachments(ctx, formId, claimed, counted);
      if (!(error instanceof StoreConflictError)) throw error;
      throw new ValidationError("The submitted files are not valid", [
        {
          path: record.unique_system_name,
          message: `${record.id} was taken by another submission`,
        },
      ]);
    }
  }
  return claimed;
}

/**
 * Gives claimed attachments back, so that another submission (or the sweep) may take them;
 * they count against the form's cap on unclaimed uploads again, unless `counted` is
 * `false` (the caller counts them).
 */
export async function releaseAttachments(
  ctx: Context,
  formId: string,
  ids: string[],
  counted = true,
) {
  for (const id of ids) {
    const stored = await ctx.store.get<AttachmentRecord>(collections.attachments, formId, id);
    if (!stored?.record.submission_id) continue;
    const released = await ctx.store.replace(collections.attachments, formId, {
      ...stored.record,
      submission_id: null,
    });
    if (released && counted) await countUnclaimedBytes(ctx, formId, stored.record.file_size);
  }
}

/**
 * Deletes attachments of `form`, their records first and then their files, and gives their
 * storage back to the owner's quota. Sizes are read only for owners who have that quota.
 */
export async function deleteAttachments(ctx: Context, form: FormRecord, ids: string[]) {
  const counted = partnerIdOf(form.owner_user_id) !== null;
  let freed = 0;
  for (const id of ids) {
    const size = counted ? await sizeOf(ctx, form.id, id) : 0;
    if (await ctx.store.delete(collections.attachments, form.id, id)) freed += size;
    await ctx.blobs?.delete(form.id, id);
  }
  await giveBackQuota(ctx, form.owner_user_id, "total_file_storage", freed);
}

async function sizeOf(ctx: Context, formId: string, id: string): Promise<number> {
  const stored = await ctx.store.get<AttachmentRecord>(collections.attachments, formId, id);
  return stored?.record.file_size ?? 0;
}

/** The attachment ids held by the file fields of `fields`. */
export function fileIdsOf(definition: FormDefinition, fields: SubmittedField[]): string[] {
  const fileFields = fileFieldNames(definition);
  return fields
    .filter((field) => fileFields.has(field.unique_system_name))
    .flatMap((field) => attachmentIdsOf(field.submitted_value));
}
