/**
 * A submission's edit history (docs/design.md §6): each S6 keeps what it replaced, inside the
 * submission's own record, so that the history is written in S6's batch and goes with the
 * submission when S7, an erasure or the retention sweep deletes it, on every store and across
 * a crash, leaving nothing behind.
 */
import type { Context } from "../context.ts";
import type { FormAccess } from "../forms/form-access.ts";
import type { SubmissionRecord, SubmissionVersion } from "../records/submission-record.ts";
import { readSubmission } from "./submission-reading.ts";

/**
 * The most text (field names and values, in UTF-16 code units) a submission's history keeps;
 * the oldest versions are dropped past it. A record must stay well under Cosmos DB's 2 MB
 * item limit whatever is edited, and S5 reads whole records.
 */
export const historyTextBudget = 256 * 1024;

/** The most versions a submission's history keeps; the oldest are dropped past it. */
export const historyVersionLimit = 100;

/**
 * `next` (the record an S6 makes of `previous`) with the version it replaces kept in its
 * history: which fields changed, from what to what, whether the draft flag was cleared, by whom
 * and when. An edit that changes nothing adds no version. Values of one edit past the budget on
 * their own are kept as names only (`values_omitted`).
 */
export function withHistory(
  previous: SubmissionRecord,
  next: SubmissionRecord,
  editorUserId: string,
): SubmissionRecord {
  const before = new Map(previous.form_fields.map((f) => [f.unique_system_name, f]));
  const changes: SubmissionVersion["changes"] = [];
  for (const field of next.form_fields) {
    const from = before.get(field.unique_system_name)?.submitted_value ?? "";
    if (from !== field.submitted_value) {
      changes.push({
        unique_system_name: field.unique_system_name,
        from,
        to: field.submitted_value,
      });
    }
  }
  const draftCleared = previous.is_draft_submission && !next.is_draft_submission;
  if (changes.length === 0 && !draftCleared) return next;
  const kept = previous.history ?? [];
  const version: SubmissionVersion = {
    version: (kept[kept.length - 1]?.version ?? 1) + 1,
    edited_date_utc: next.modified_date_utc,
    edited_by_user_id: editorUserId,
    changes,
    ...(draftCleared ? { draft_cleared: true } : {}),
  };
  if (textOf(version) > historyTextBudget) {
    version.changes = changes.map(({ unique_system_name }) => ({ unique_system_name }));
    version.values_omitted = true;
  }
  const history = [...kept, version];
  let text = history.reduce((sum, entry) => sum + textOf(entry), 0);
  let dropped = previous.history_dropped ?? 0;
  while (history.length > historyVersionLimit || text > historyTextBudget) {
    text -= textOf(history.shift() as SubmissionVersion);
    dropped++;
  }
  return { ...next, history, ...(dropped > 0 ? { history_dropped: dropped } : {}) };
}

/** The text a version holds, as the budget counts it. */
function textOf(version: SubmissionVersion): number {
  let text = version.edited_by_user_id.length;
  for (const change of version.changes) {
    text +=
      change.unique_system_name.length + (change.from?.length ?? 0) + (change.to?.length ?? 0);
  }
  return text;
}

/**
 * Extension: a submission's edits, newest first, each with the version it made, when, by whom
 * and what it changed (`from` → `to`). Version 1 is the submission as posted; `dropped_versions`
 * counts the oldest edits the bounds let go. Readers of the submission (S1's roles).
 */
export async function getSubmissionHistory(ctx: Context, access: FormAccess, submissionId: string) {
  const { record } = await readSubmission(ctx, access.form.id, submissionId);
  const history = record.history ?? [];
  return {
    submission_id: record.id,
    current_version: history[history.length - 1]?.version ?? 1,
    created_date_utc: record.created_date_utc,
    dropped_versions: record.history_dropped ?? 0,
    versions: [...history].reverse(),
  };
}
