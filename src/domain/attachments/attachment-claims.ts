import { ValidationError, type ValidationIssue } from "../../kernel/errors.ts";
import type { BatchOp, Stored } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import { type FormDefinition, fileFieldNames } from "../forms/form-definition.ts";
import { collections } from "../records/collections.ts";
import {
  type AttachmentRecord,
  attachmentIdsOf,
  type SubmittedField,
} from "../records/submission-record.ts";

/**
 * A file a submission is to claim, as known: read, or settled by this instance, with the
 * etag its claim is conditional on (settled-uploads.ts); or listed as waiting by the form's
 * counter, with the token its claim takes (waiting-uploads.ts).
 */
export type Claimable =
  | (Stored<AttachmentRecord> & { token?: undefined })
  | { record: AttachmentRecord; token: string; etag?: undefined };

/** Where S2 finds files to claim unread: the upload `id` as known, if it is. */
export type HeldUploads = (id: string) => Claimable | undefined;

/**
 * The attachments named in the file fields of `fields` that the submission does not hold
 * yet, as read, for {@link claimOps}. Each id must be an attachment of this form, uploaded
 * for that very field, and held by no other submission. A file `held` answers that fits is
 * taken from there unread: its claim is conditional on the etag or token held, so a batch
 * that claims it fails unless it is still as held (settled-uploads.ts, waiting-uploads.ts).
 * @throws {ValidationError} naming each field whose ids are not claimable.
 */
export async function readClaimable(
  ctx: Context,
  formId: string,
  submissionId: string,
  definition: FormDefinition,
  fields: SubmittedField[],
  held?: HeldUploads,
): Promise<Claimable[]> {
  const fileFields = fileFieldNames(definition);
  const toClaim: Claimable[] = [];
  const issues: ValidationIssue[] = [];
  for (const field of fields) {
    const name = field.unique_system_name;
    if (!fileFields.has(name)) continue;
    for (const id of attachmentIdsOf(field.submitted_value)) {
      const known = held?.(id);
      if (known && fits(known.record, formId, name) && !known.record.submission_id) {
        toClaim.push(known);
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

/**
 * An attachment as a claim by the submission `submissionId`, written at `at`, leaves it:
 * without its claim token, which only a waiting upload holds (waiting-uploads.ts).
 */
export function claimedRecord(
  record: AttachmentRecord,
  submissionId: string,
  at: string,
): AttachmentRecord {
  const { claim_token: _, ...claimed } = record;
  return { ...claimed, ...claimFields(submissionId, at) };
}

/** The fields a claim sets: the same whether it replaces the record or patches it. */
function claimFields(submissionId: string, at: string) {
  return { submission_id: submissionId, modified_date_utc: at };
}

/** The bytes of the files `claims` holds. */
export function bytesOf(claims: readonly Claimable[]): number {
  return claims.reduce((sum, { record }) => sum + record.file_size, 0);
}

/**
 * The batch ops that claim attachments as {@link readClaimable} found them for the
 * submission `submissionId` (written at `at`): a replace conditional on the etag read, or a
 * patch that takes the token listed, each carrying the record as known. In the batch that
 * writes the submission, a crash leaves no claim without its submission, and a file another
 * submission took meanwhile fails the batch (read the claims again to say which).
 */
export function claimOps(
  submissionId: string,
  toClaim: readonly Claimable[],
  at: string,
): BatchOp[] {
  return toClaim.map(({ record, etag, token }): BatchOp => {
    const place = { collection: collections.attachments, partition: record.form_id };
    // As known with that etag or token: Cosmos DB's op-by-op batch undoes the claim without
    // reading it.
    if (token !== undefined) {
      return {
        op: "patch",
        ...place,
        id: record.id,
        // It leaves the record as claimedRecord does: these fields set, the token removed.
        set: claimFields(submissionId, at),
        token: { field: "claim_token", value: token },
        previous: record,
      };
    }
    const claimed = claimedRecord(record, submissionId, at);
    return { op: "replace", ...place, record: claimed, ifMatch: etag, previous: record };
  });
}

/** The attachment ids held by the file fields of `fields`. */
export function fileIdsOf(definition: FormDefinition, fields: SubmittedField[]): string[] {
  return fileIdsIn(fileFieldNames(definition), fields);
}

/**
 * The attachment ids `fields` hold in the fields named in `fileFields` (a form's
 * `fileFieldNames`, found once for many submissions: a form read from the store is a fresh
 * copy each time, whose compiled definition is not kept).
 */
export function fileIdsIn(fileFields: ReadonlySet<string>, fields: SubmittedField[]): string[] {
  return fields
    .filter((field) => fileFields.has(field.unique_system_name))
    .flatMap((field) => attachmentIdsOf(field.submitted_value));
}
