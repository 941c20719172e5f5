import type { Caller } from "../accounts/caller.ts";
import { linkWith } from "../attachments/signed-links.ts";
import { type AuditSource, appendAudit } from "../audit/index.ts";
import type { Context } from "../context.ts";
import type { FormAccess } from "../forms/form-access.ts";
import { collections } from "../records/collections.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import { ensureRespondentIndex } from "../submissions/respondent-backfill.ts";
import { indexedSubmissions, respondentKeyOf } from "../submissions/respondent-index.ts";
import { submissionWithLinks } from "../submissions/submission-reading.ts";
import { respondentForms } from "./respondent-forms.ts";

/**
 * `GET /api/restricted/respondents/export`: every submission of the caller's forms
 * (respondent-forms.ts) that the respondent index finds for `email`, as newline-delimited
 * JSON, one line per submission: `form_id`, `form_name`, and `form_submission` with its
 * `attachment_details` as S1 shows them, each with `attachment_url`, its whole signed link. The forms are read before
 * the answer starts; the submissions are streamed a page of the index at a time, read only
 * when the client has taken the page before, so memory holds one page whatever their number.
 * A store failure in the middle ends the stream with an error, as the form export's does.
 * Each page of a form's submissions is recorded in its audit trail (`respondent_exported`,
 * their ids) before its lines are read (docs/design.md §25). Each form is made sure of its
 * index (respondent-backfill.ts) when the stream reaches it.
 */
export async function exportRespondent(
  ctx: Context,
  caller: Caller,
  email: string,
  source: AuditSource,
): Promise<ReadableStream<Uint8Array>> {
  const key = respondentKeyOf(email);
  const forms = await respondentForms(ctx, caller);
  const encoder = new TextEncoder();
  let current = 0;
  let continuation: string | null = null;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // A pull that enqueues nothing and does not close is not called again: read on
        // until a page holds a line or the forms are done.
        for (let access = forms[current]; access; access = forms[current]) {
          if (continuation === null) await ensureRespondentIndex(ctx, access.form);
          const page = await indexedSubmissions(ctx, access.form.id, key, continuation);
          let text = "";
          if (page.ids.length > 0)
            await appendAudit(ctx, access.form.id, source, "respondent_exported", page.ids);
          for (const id of page.ids) text += await lineOf(ctx, access, id);
          continuation = page.continuation;
          if (!continuation) current++;
          if (text) return controller.enqueue(encoder.encode(text));
        }
        controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

/** The line of one submission; empty when it was deleted since the index was read. */
async function lineOf(ctx: Context, access: FormAccess, submissionId: string): Promise<string> {
  const { form } = access;
  const stored = await ctx.store.get<SubmissionRecord>(
    collections.submissions,
    form.id,
    submissionId,
  );
  if (!stored) return "";
  const shown = await submissionWithLinks(ctx, access, stored.record);
  const attachment_details = [];
  // S1's `attachment_sas_uri` is the link's query alone; the whole link opens the file.
  for (const detail of shown.attachment_details) {
    const { id } = detail.attachment;
    const attachment_url = linkWith(ctx, form.id, id, detail.attachment_sas_uri);
    attachment_details.push({ ...detail, attachment_url });
  }
  const line = {
    form_id: form.id,
    form_name: form.form_configuration.settings.form_name,
    form_submission: shown.form_submission,
    attachment_details,
  };
  return `${JSON.stringify(line)}\n`;
}
