/**
 * S2's checks of a post against one snapshot of its form (submission-post.ts): whether the
 * form takes it, its values, the files it claims, the inventory and counts it takes, and the
 * record it is stored as.
 */
import { ServiceError } from "../../kernel/errors.ts";
import { createdAt } from "../../kernel/timestamps.ts";
import type { Stored } from "../../ports/store.ts";
import type { Caller } from "../accounts/caller.ts";
import {
  bytesOf,
  type Claimable,
  claimedRecord,
  type HeldUploads,
  readClaimable,
} from "../attachments/attachment-claims.ts";
import { unclaimedBytesCount } from "../attachments/unclaimed-uploads.ts";
import type { Context } from "../context.ts";
import type { FormSnapshot } from "../forms/form-snapshots.ts";
import type { CounterRecord } from "../quotas/counters.ts";
import type { Device } from "../records/device.ts";
import type { SubmissionRecord, SubmittedField } from "../records/submission-record.ts";
import { compileRules, type FormRules } from "../settings/form-rules.ts";
import { countsAfterPost, inventoryTaken } from "../settings/inventory.ts";
import {
  closedMessages,
  pastClosing,
  submissionLimitsOf,
} from "../settings/sections/quantity-limit.ts";
import { accessFormToSubmit } from "../settings/submit-access.ts";
import { respondentKeysOf } from "../submissions/respondent-index.ts";
import { searchWordsOf } from "../submissions/search-words.ts";
import { checkSubmittedValues } from "../submissions/submission-values.ts";

/** A post checked against one snapshot of its form. */
export interface CheckedPost {
  snapshot: FormSnapshot;
  values: SubmittedField[];
  /** The form's `max_total_submissions`, or infinity. */
  limit: number;
  /** The files the post names that it is to claim, as known (attachment-claims.ts). */
  claims: Claimable[];
  rules: FormRules;
  /** The inventory counts the post takes (none for a draft). */
  taken: string[];
}

/**
 * Checks a post (to be stored as `submissionId`) against the form as `snapshot` has it, and
 * reads the files it claims.
 */
export async function checkPost(
  ctx: Context,
  caller: Caller | null,
  submissionId: string,
  snapshot: FormSnapshot,
  fields: SubmittedField[],
  draft: boolean,
  held: HeldUploads | undefined,
): Promise<CheckedPost> {
  const formId = snapshot.form.id;
  const { form } = await accessFormToSubmit(ctx, caller, formId, snapshot);
  if (pastClosing(form, ctx.now())) throw new ServiceError("form_closed", closedMessages.closed);
  const values = await checkSubmittedValues(ctx, form, fields, draft, snapshot);
  const definition = form.form_definition;
  const claims = await readClaimable(ctx, formId, submissionId, definition, values, held);
  const rules = compileRules(form);
  const taken = draft ? [] : inventoryTaken(rules, values);
  const limit = submissionLimitsOf(form).max_total_submissions ?? Number.POSITIVE_INFINITY;
  return { snapshot, values, limit, claims, rules, taken };
}

/**
 * The form counter's counts after the post: the whole counts, so that counts other code
 * keeps in this record stay as they were, with the post's inventory taken (inventory.ts)
 * and its claimed files' bytes off the unclaimed uploads.
 * @throws {ServiceError} `form_closed` past `max_total_submissions`.
 */
export function countsOf(counter: Stored<CounterRecord> | null, checked: CheckedPost) {
  const counts = countsAfterPost(counter?.record.counts ?? {}, checked.rules, checked.taken);
  if ((counts.submissions ?? 0) > checked.limit) {
    throw new ServiceError("form_closed", closedMessages.sold_out);
  }
  const claimedBytes = bytesOf(checked.claims);
  if (claimedBytes > 0) {
    const unclaimed = counts[unclaimedBytesCount] ?? 0;
    counts[unclaimedBytesCount] = Math.max(0, unclaimed - claimedBytes);
  }
  return counts;
}

/** The record of a new submission, with the inventory it takes. */
export function submissionOf(
  ctx: Context,
  { form }: FormSnapshot,
  id: string,
  { values, taken, claims }: CheckedPost,
  caller: Caller | null,
  device: Device,
  draft: boolean,
): SubmissionRecord {
  const { created_date_utc: at, modified_date_utc } = createdAt(ctx.now());
  const keys = respondentKeysOf(form, values);
  // The id first and what S5 leaves out last: a page answers such a record from the store's
  // text of it, cut before `inventory_taken` when that and `attachments_held` are all the
  // record holds of it (`publicSubmissionText`, docs/design.md §18).
  return {
    id,
    form_id: form.id,
    stale_form_name: form.form_configuration.settings.form_name,
    created_by_verified_email_address: caller?.email ?? "",
    created_by_device: device,
    form_fields: values,
    search_words: searchWordsOf(form.form_definition, values),
    is_draft_submission: draft,
    created_date_utc: at,
    modified_date_utc,
    inventory_taken: taken,
    attachments_held: claims.map(({ record }) => claimedRecord(record, id, at)),
    ...(keys.length > 0 ? { respondent_keys: keys } : {}),
  };
}
