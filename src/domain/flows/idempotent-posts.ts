/**
 * S2 and S6 with an `Idempotency-Key` (docs/design.md §6): the request's fingerprint is its
 * operation, its target and its JSON body as parsed; the key's record goes in the flow's
 * own batch (idempotency-keys.ts).
 */
import type { Caller } from "../accounts/caller.ts";
import type { AuditSource } from "../audit/index.ts";
import type { Context } from "../context.ts";
import type { FormRecord } from "../forms/form-record.ts";
import type { Device } from "../records/device.ts";
import { type Answered, answerOnce, idempotentRequest } from "../records/idempotency-keys.ts";
import type { SubmissionInput } from "../records/submission-record.ts";
import type { BotMarks } from "../settings/bot-protection.ts";
import { createSubmission } from "./submission-post.ts";
import { updateSubmission } from "./submission-update.ts";

/**
 * S2 with an `Idempotency-Key` (docs/design.md §6): the first answer of `key` with the same
 * `body` (the request's JSON as parsed) is answered again, and nothing written.
 */
export function createSubmissionOnce(
  ctx: Context,
  caller: Caller | null,
  formId: string,
  input: SubmissionInput,
  device: Device,
  marks: BotMarks,
  { key, body }: { key: string; body: unknown },
  pageUrl?: () => string,
): Promise<Answered<Awaited<ReturnType<typeof createSubmission>>>> {
  const what = `S2 ${formId}\n${JSON.stringify(body)}`;
  const request = idempotentRequest(formId, caller?.userId ?? null, key, what);
  return answerOnce(ctx, request, () =>
    createSubmission(ctx, caller, formId, input, device, marks, request, pageUrl),
  );
}

/**
 * S6 with an `Idempotency-Key` (docs/design.md §6): the first answer of `key` with the same
 * `body` (the request's JSON as parsed) is answered again, and nothing written.
 */
export function updateSubmissionOnce(
  ctx: Context,
  caller: { userId: string },
  form: FormRecord,
  submissionId: string,
  input: SubmissionInput,
  { key, body }: { key: string; body: unknown },
  source?: AuditSource,
): Promise<Answered<Awaited<ReturnType<typeof updateSubmission>>>> {
  const what = `S6 ${form.id}/${submissionId}\n${JSON.stringify(body)}`;
  const request = idempotentRequest(form.id, caller.userId, key, what);
  return answerOnce(ctx, request, () =>
    updateSubmission(ctx, form, submissionId, input, caller, request, source),
  );
}
