import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import type { FormAccess } from "../forms/form-access.ts";
import { collections } from "../records/collections.ts";
import type { SubmissionRecord } from "../records/submission-record.ts";
import { indexedSubmissions, respondentKeyOf } from "../submissions/respondent-index.ts";
import { submissionWithLinks } from "../submissions/submission-reading.ts";
import { respondentForms } from "./respondent-forms.ts";

/**
 * `GET /api/restricted/respondents/export`: every submission of the caller's forms
 * (respondent-forms.ts) that the respondent index finds for `email`, as newline-delimited
 * JSON, one line per submission: `form_id`, `form_name`, and `form_submission` with its
 * `attachment_details` as S1 shows them (signed links included). The forms are read before
 * the answer starts; the submissions are streamed a page of the index at a time, read only
 * when the client has taken the page before, so memory holds one page whatever their number.
 * A store failure in the middle ends the stream with an error, as the form export's does.
 */
export async function exportRespondent(
  ctx: Context,
  caller: Caller,
  email: string,
): Promise<ReadableStream<Uint8Array>> {
  const key = respondentKeyOf(email);
  const forms = await respondentForms(ctx, caller);
  const encoder = new TextEncoder();
  let current = 0;
  let continuation: string | null = null;
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        const access = forms[current];
        if (!access) return controller.close();
        const page = await indexedSubmissions(ctx, access.form.id, key, continuation);
        let text = "";
        for (const id of page.ids) text += await lineOf(ctx, access, id);
        if (text) controller.enqueue(encoder.encode(text));
        continuation = page.continuation;
        if (!continuation) current++;
        if (!forms[current]) controller.close();
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
  const line = {
    form_id: form.id,
    form_name: form.form_configuration.settings.form_name,
    ...(await submissionWithLinks(ctx, access, stored.record)),
  };
  return `${JSON.stringify(line)}\n`;
}
