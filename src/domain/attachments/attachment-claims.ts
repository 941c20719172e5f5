import { ValidationError, type ValidationIssue } from "../../kernel/errors.ts";
import type { BatchOp, Stored } from "../../ports/store.ts";
import { type Context, collections } from "../context.ts";
import { type FormDefinition, fileFieldNames } from "../forms/form-definition.ts";
import {
  type AttachmentRecord,
  attachmentIdsOf,
  type SubmittedField,
} from "../submissions/submission-record.ts";
import type { SettledUploads } from "./settled-uploads.ts";

/**
 * The attachments named in the file fields of `fields` that the submission does not hold
 * yet, as read, for {@link claimOps}. Each id must be an attachment of this form, uploaded
 * for that very field, and held by no other submission. A file `settled` holds that fits is
 * taken from there unread: its claim is conditional on the etag held, so a batch that claims
 * it fails unless it is still as read (settled-uploads.ts).
 * @throws {ValidationError} naming each field whose ids are not claimable.
 */
export async function readClaimable(
  ctx: Context,
  formId: string,
  submissionId: string,
  definition: FormDefinition,
  fields: SubmittedField[],
  settled?: SettledUploads,
): Promise<Stored<AttachmentRecord>[]> {
  const fileFields = fileFieldNames(definition);
  const toClaim: Stored<AttachmentRecord>[] = [];
  const issues: ValidationIssue[] = [];
  for (const field of fields) {
    const name = field.unique_system_name;
    if (!fileFields.has(name)) continue;
    for (const id of attachmentIdsOf(field.submitted_value)) {
      const held = settled?.get(id);
      if (held && fits(held.record, formId, name) && !held.record.submission_id) {
        toClaim.push(held);
        continue;
      }
      const stored = await ctx.store.get<AttachmentRecord>(collections.attachments, formId, id);
      const owner = stored?.record.submission_id;
      if (!stored || !fits(stored.record, formId, name) || (owner && owner !== submissionId)) {
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
 * Whether an attachment of form `formId` was uploaded for the field `name` and is done: a
 * file still uploading is no attachment yet (upload-holds.ts).
 */
function fits(record: AttachmentRecord, formId: string, name: string): boolean {
  return record.form_id === formId && record.unique_system_name === name && !record.uploading;
}

/** An attachment as a claim by the submission `submissionId`, written at `at`, leaves it. */
export function claimedRecord(
  record: AttachmentRecord,
  submissionId: string,
  at: string,
): AttachmentRecord {
  return { ...record, submission_id: submissionId, modified_date_utc: at };
}

/**
 * The batch ops that claim attachments as {@link readClaimable} read them for the
 * submission `submissionId` (written at `at`), each a replace conditional on the etag read:
 * in the batch that writes the submission, a crash leaves no claim without its submission,
 * and a file another submission took meanwhile fails the batch (read the claims again to
 * say which).
 */
export function claimOps(
  submissionId: string,
  toClaim: Stored<AttachmentRecord>[],
  at: string,
): BatchOp[] {
  return toClaim.map(({ record, etag }) => ({
    op: "replace",
    collection: collections.attachments,
    partition: record.form_id,
    record: claimedRecord(record, submissionId, at),
    ifMatch: etag,
    // As read with that etag: Cosmos DB's op-by-op batch undoes the claim without reading it.
    previous: record,
  }));
}

/** The attachment ids held by the file fields of `fields`. */
export function fileIdsOf(definition: FormDefinition, fields: SubmittedField[]): string[] {
  const fileFields = fileFieldNames(definition);
  return fields
    .filter((field) => fileFields.has(field.unique_system_name))
    .flatMap((field) => attachmentIdsOf(field.submitted_value));
}
