import { createHash } from "node:crypto";
import type { BatchOp } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import { compileDefinition } from "../forms/form-definition.ts";
import type { FormRecord } from "../forms/form-record.ts";
import { collections } from "../records/collections.ts";
import type { SubmittedField } from "../records/submission-record.ts";
import { confirmationEmailSettingsOf } from "../settings/sections/confirmation-email.ts";

/**
 * The respondent index (docs/design.md §6): which submissions of a form hold an e-mail
 * address, so that an erasure or access request finds them with one single-partition query
 * per form, never a scan. One record per (submission, address) in the form's partition,
 * written in the batch of the submission itself (S2, S6, S7), so on Cosmos DB in its
 * transactional batch: it costs S2 no request. It stores no address, only its key.
 */

/** One submission holding one address. Partition: the form id. */
export interface RespondentIndexRecord {
  /** `<key>.<submission id>`. */
  id: string;
  /** {@link respondentKeyOf} the address. */
  key: string;
  submission_id: string;
}

/** The key of an address: the hex SHA-256 of it trimmed and lower-cased as a whole. */
export function respondentKeyOf(address: string): string {
  return createHash("sha256").update(address.trim().toLowerCase()).digest("hex");
}

/**
 * The keys of the addresses `values` hold in the form's e-mail fields and its confirmation
 * e-mail's recipient field, each once; empty values left out.
 */
export function respondentKeysOf(form: FormRecord, values: readonly SubmittedField[]): string[] {
  const { fields } = compileDefinition(form.form_definition);
  const recipient = confirmationEmailSettingsOf(form)?.recipient_field;
  const keys = new Set<string>();
  for (const { unique_system_name: name, submitted_value: value } of values) {
    if (value.trim() === "") continue;
    if (fields.get(name)?.type === "email" || name === recipient) keys.add(respondentKeyOf(value));
  }
  return [...keys];
}

/** `record` with `keys` as its `respondent_keys`, the field left out when there are none. */
export function withRespondentKeys<T extends { respondent_keys?: string[] }>(
  record: T,
  keys: string[],
): T {
  const { respondent_keys: _, ...rest } = record;
  return (keys.length > 0 ? { ...rest, respondent_keys: keys } : rest) as T;
}

/**
 * The batch ops that take a submission's index records from the keys `before` to `after`:
 * creates for the keys it gains, deletes for those it loses.
 */
export function respondentIndexOps(
  formId: string,
  submissionId: string,
  before: readonly string[] = [],
  after: readonly string[] = [],
): BatchOp[] {
  const ops: BatchOp[] = [];
  for (const key of after) {
    if (before.includes(key)) continue;
    const record: RespondentIndexRecord = {
      id: indexIdOf(key, submissionId),
      key,
      submission_id: submissionId,
    };
    ops.push({ op: "create", collection: collections.respondentIndex, partition: formId, record });
  }
  for (const key of before) {
    if (after.includes(key)) continue;
    const id = indexIdOf(key, submissionId);
    ops.push({ op: "delete", collection: collections.respondentIndex, partition: formId, id });
  }
  return ops;
}

function indexIdOf(key: string, submissionId: string): string {
  return `${key}.${submissionId}`;
}

/** The most index records one page of {@link indexedSubmissions} reads. */
export const indexPageSize = 25;

/**
 * One page of the ids of the submissions of `formId` that hold the address of `key`, with
 * the continuation of the next page (`null` on the last).
 */
export async function indexedSubmissions(
  ctx: Context,
  formId: string,
  key: string,
  continuation: string | null = null,
): Promise<{ ids: string[]; continuation: string | null }> {
  const page = await ctx.store.query<RespondentIndexRecord>(collections.respondentIndex, formId, {
    where: [{ field: "key", op: "eq", value: key }],
    limit: indexPageSize,
    continuation,
  });
  return {
    ids: page.items.map(({ record }) => record.submission_id),
    continuation: page.continuation,
  };
}
