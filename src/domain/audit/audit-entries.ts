import { newId } from "../../kernel/ids.ts";
import { type BatchOp, StoreConflictError } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";

/**
 * The audit trail (docs/design.md §25): one entry per read of submissions, change of them,
 * and change of who may see them, kept in the form's own partition (so that on Cosmos DB an
 * entry written in a change's `Store.batch` costs no request more) and never deleted with
 * the form. Entries name records by id only: never a submitted value or a respondent's
 * address.
 */

/** What an entry records; a stable snake_case name per operation. */
export type AuditAction =
  | "submission_read"
  | "submissions_listed"
  | "submissions_exported"
  | "attachment_link_issued"
  | "submission_updated"
  | "submission_deleted"
  | "respondent_erased"
  | "retention_deleted"
  | "respondent_exported"
  | "collaborator_added"
  | "collaborator_changed"
  | "collaborator_removed"
  | "webhook_added"
  | "webhook_removed"
  | "destination_settings_changed"
  | "email_settings_changed"
  | "payment_settings_changed"
  | "form_deleted";

/** Who did it and from where: built once per request by the routes. */
export interface AuditSource {
  /** A user id; `partner:<partner id>` for a partner (or its customer login token); `system`. */
  actor: string;
  /** With a customer login token: the customer's user id the partner acted as. */
  on_behalf_of?: string;
  /** The client's address as the service takes it (`created_by_device`'s); "" when unknown. */
  client_address: string;
  /** The request's `X-Request-Id`; "" for the service's own work. */
  request_id: string;
}

/** The source of what the service does by itself (the sweep, retention). */
export const systemSource: AuditSource = { actor: "system", client_address: "", request_id: "" };

/** One entry of a form's audit trail. */
export interface AuditEntry extends AuditSource {
  /** Fresh and time-ordered. */
  id: string;
  /** ISO time, UTC. */
  at: string;
  action: AuditAction;
  form_id: string;
  /** The records it touched, by id (at most {@link maxTargets}). */
  target_ids: string[];
  /** How many records it touched: where the ids are cut to {@link maxTargets}, and on S5 pages. */
  count?: number;
  /** When the sweep removes it, under the retention in force when it was written. */
  expires_at: string;
}

/** The most ids an entry lists; `count` says how many there were. */
export const maxTargets = 100;

const day = 24 * 60 * 60 * 1000;

/** The entry of `action` by `source` on `targets` of `formId`, now. */
export function auditEntry(
  ctx: Context,
  formId: string,
  source: AuditSource,
  action: AuditAction,
  targets: readonly string[],
): AuditEntry {
  const now = ctx.now();
  const entry: AuditEntry = {
    id: newId(),
    at: now.toISOString(),
    actor: source.actor,
    ...(source.on_behalf_of === undefined ? {} : { on_behalf_of: source.on_behalf_of }),
    action,
    form_id: formId,
    target_ids: targets.slice(0, maxTargets),
    client_address: source.client_address,
    request_id: source.request_id,
    expires_at: new Date(now.getTime() + ctx.limits.auditRetentionDays * day).toISOString(),
  };
  if (targets.length > maxTargets) entry.count = targets.length;
  return entry;
}

/**
 * The batch op that appends an entry, for a change that writes a `Store.batch` in the form's
 * partition (S6, S7): a crash keeps both or neither. Notes the form under the month first
 * (once a month per form and instance), so that the sweep finds the entry.
 */
export async function auditOp(
  ctx: Context,
  formId: string,
  source: AuditSource,
  action: AuditAction,
  targets: readonly string[],
): Promise<BatchOp> {
  const record = await notedEntry(ctx, formId, source, action, targets);
  return { op: "create", collection: collections.auditEntries, partition: formId, record };
}

/**
 * Appends an entry with one create, after what it records succeeded (the reads, and the
 * changes that write no batch). A failure is thrown: the request fails rather than go
 * unrecorded.
 */
export async function appendAudit(
  ctx: Context,
  formId: string,
  source: AuditSource,
  action: AuditAction,
  targets: readonly string[],
  count?: number,
): Promise<void> {
  const record = await notedEntry(ctx, formId, source, action, targets, count);
  await ctx.store.create(collections.auditEntries, formId, record);
}

/** The entry {@link auditEntry} makes (with `count`, when given), its month noted first. */
async function notedEntry(
  ctx: Context,
  formId: string,
  source: AuditSource,
  action: AuditAction,
  targets: readonly string[],
  count?: number,
): Promise<AuditEntry> {
  const record = auditEntry(ctx, formId, source, action, targets);
  if (count !== undefined) record.count = count;
  await noteAuditMonth(ctx, formId, record.at.slice(0, 7));
  return record;
}

/** A note that a form took entries in a month; partition: the month; id: the form id. */
export interface AuditMonthNote {
  id: string;
}

/**
 * Notes `formId` under `month` in `audit_months`, unless this instance did already: one
 * create per form, month and instance, before the entry, so that no entry is ever out of
 * the sweep's reach. Another instance's note meets "exists", which is as good.
 */
async function noteAuditMonth(ctx: Context, formId: string, month: string): Promise<void> {
  const noted = notedForms(ctx, month);
  if (noted.has(formId)) return;
  try {
    await ctx.store.create<AuditMonthNote>(collections.auditMonths, month, { id: formId });
  } catch (error) {
    if (!(error instanceof StoreConflictError)) throw error;
  }
  noted.add(formId);
}

/** The forms this instance has noted in `month` (only that month is kept). */
function notedForms(ctx: Context, month: string): Set<string> {
  let noted = notedByContext.get(ctx);
  if (noted?.month !== month) {
    noted = { month, forms: new Set() };
    notedByContext.set(ctx, noted);
  }
  // Bounded: past it, entries note their form again, which costs a create that meets "exists".
  if (noted.forms.size >= 10_000) noted.forms.clear();
  return noted.forms;
}

const notedByContext = new WeakMap<Context, { month: string; forms: Set<string> }>();
