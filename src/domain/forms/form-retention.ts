/**
 * Retention per form (docs/design.md §15): its bounds, and the registry of the forms that
 * have one (`retention_forms`), so that the retention sweep finds them without scanning every
 * form. The setting itself is the security section's (settings/sections/security.ts).
 */
import type { Page } from "../../ports/store.ts";
import { updateRecord } from "../../ports/update-record.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";

/** The fewest days a form may keep its submissions. */
export const minRetentionDays = 1;
/** The most days a form may keep its submissions (ten years); absent keeps them for ever. */
export const maxRetentionDays = 3650;

/** A form in the registry; partition `all`, id the form id. */
export interface RetentionEntry {
  id: string;
  form_id: string;
  /** When a write last set a retention on the form: the sweep leaves younger entries be. */
  registered_at: string;
}

/** The registry's one partition: it is read once a sweep and written when a retention is set. */
export const retentionPartition = "all";

/**
 * How long an entry stays although its form has no retention or is not there: the form is
 * written after its entry (F2, a clone), so a sweep that read the form in between must not
 * drop the entry the form is about to need. Far longer than any write takes, and than the
 * clocks of two instances differ.
 */
export const registrationGraceMs = 60 * 60 * 1000;

/**
 * Registers `formId` for the retention sweep, or renews its entry: written BEFORE the form
 * that holds the retention, so that a form with a retention always has its entry (a crash in
 * between leaves an entry, which the sweep drops). Rewriting it moves its etag, so a sweep
 * that read the entry before cannot drop it.
 */
export async function registerForRetention(ctx: Context, formId: string): Promise<void> {
  const entry: RetentionEntry = {
    id: formId,
    form_id: formId,
    registered_at: ctx.now().toISOString(),
  };
  await updateRecord<RetentionEntry>(
    ctx.store,
    collections.retentionForms,
    retentionPartition,
    formId,
    () => entry,
  );
}

/** One page of the registry, up to 100 entries, in id order. */
export function retentionEntries(
  ctx: Context,
  continuation: string | null,
): Promise<Page<RetentionEntry>> {
  return ctx.store.query<RetentionEntry>(collections.retentionForms, retentionPartition, {
    limit: 100,
    continuation,
  });
}
