import { NotFoundError } from "../../kernel/errors.ts";
import { fileIdsIn } from "../attachments/attachment-claims.ts";
import { attachmentLink, attachmentQuery } from "../attachments/signed-links.ts";
import { type AuditSource, appendAudit } from "../audit/index.ts";
import type { Context } from "../context.ts";
import type { FormAccess } from "../forms/form-access.ts";
import { fileFieldNames } from "../forms/form-definition.ts";
import { collections } from "../records/collections.ts";
import {
  type AttachmentRecord,
  attachmentView,
  type SubmissionRecord,
  submissionView,
} from "../records/submission-record.ts";

/**
 * S1: one submission with its attachments, each with a signed read link; recorded in the
 * audit trail once read (docs/design.md §25).
 */
export async function getSubmission(
  ctx: Context,
  access: FormAccess,
  submissionId: string,
  source: AuditSource,
) {
  const formId = access.form.id;
  const { record } = await readSubmission(ctx, formId, submissionId);
  const shown = await submissionWithLinks(ctx, access, record);
  await appendAudit(ctx, formId, source, "submission_read", [submissionId]);
  return {
    ...shown,
    user_has_edit_submission_access: access.isOwner || access.roles.has("has_reporting_full"),
  };
}

/**
 * A submission as S1 shows it (and the respondent export): `form_submission` and its
 * `attachment_details`, each attachment with a signed read link.
 */
export async function submissionWithLinks(
  ctx: Context,
  access: FormAccess,
  record: SubmissionRecord,
) {
  const attachments = await attachmentsOf(ctx, access, [record]);
  const attachment_details = [];
  for (const attachment of attachments) {
    attachment_details.push({
      attachment: attachmentView(attachment),
      attachment_sas_uri: await attachmentQuery(ctx, access.form.id, attachment.id),
    });
  }
  return { form_submission: submissionView(record), attachment_details };
}

/** S4: a temporary link to one attachment of the form, recorded in the audit trail. */
export async function getAttachmentLink(
  ctx: Context,
  formId: string,
  attachmentId: string,
  source: AuditSource,
) {
  const stored = await ctx.store.get<AttachmentRecord>(
    collections.attachments,
    formId,
    attachmentId,
  );
  // An upload still streaming is no attachment yet (upload-holds.ts).
  if (!stored || stored.record.uploading) throw new NotFoundError("Attachment not found");
  const link = await attachmentLink(ctx, formId, attachmentId);
  await appendAudit(ctx, formId, source, "attachment_link_issued", [attachmentId]);
  return {
    id: link,
    message: "Temporary link to file",
    action_successful: true,
    error: "",
  };
}

/** The attachment records that the file fields of some submissions hold, in order. */
export async function attachmentsOf(
  ctx: Context,
  access: FormAccess,
  submissions: SubmissionRecord[],
): Promise<AttachmentRecord[]> {
  const records: AttachmentRecord[] = [];
  const fileFields = fileFieldNames(access.form.form_definition);
  for (const submission of submissions) {
    // Kept on the record since its claim: no read (submission-record.ts).
    if (submission.attachments_held) {
      records.push(...submission.attachments_held);
      continue;
    }
    // A form without file fields holds no files to read (S5 asks for a hundred at a time).
    if (fileFields.size === 0) continue;
    for (const id of fileIdsIn(fileFields, submission.form_fields)) {
      const stored = await ctx.store.get<AttachmentRecord>(
        collections.attachments,
        access.form.id,
        id,
      );
      // A file deleted by an S6 racing this read is simply left out.
      if (stored) records.push(stored.record);
    }
  }
  return records;
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
