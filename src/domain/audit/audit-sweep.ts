import { queryAll } from "../../ports/query-all.ts";
import { type BatchOp, StoreConflictError } from "../../ports/store.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { readSweepCursor, saveSweepCursor } from "../records/sweep-cursors.ts";
import type { AuditEntry, AuditMonthNote } from "./audit-entries.ts";

/**
 * Removes audit entries older than `limits.auditRetentionDays` (docs/design.md §25), without
 * scanning forms: entries are read in their form's partition, and each form that took
 * entries in a month is noted under that month (`audit_months`, audit-entries.ts). The
 * sweep works month by month from its cursor (in `service_state`) through the months wholly
 * before the cutoff, deleting each noted form's older entries and then the month's notes;
 * the month the cutoff falls in is swept once a day, whole days only, so an entry leaves at
 * most a day after its retention ends while a sweep every few minutes costs no query per
 * form. Deleted forms' entries are noted like any others, and leave the same way.
 * @returns how many entries it removed.
 */
export async function sweepAuditEntries(ctx: Context): Promise<number> {
  const now = ctx.now().getTime();
  const cutoffTime = startOfDay(now - ctx.limits.auditRetentionDays * day);
  const cutoff = new Date(cutoffTime).toISOString();
  const partialMonth = cutoff.slice(0, 7);
  let month =
    (await readSweepCursor(ctx.store, monthSweep)) ??
    new Date(cutoffTime - firstLookBack).toISOString().slice(0, 7);
  let removed = 0;
  while (month < partialMonth) {
    removed += await sweepMonth(ctx, month, cutoff);
    await ctx.store.deletePartition(collections.auditMonths, month);
    month = nextMonth(month);
    await saveSweepCursor(ctx.store, monthSweep, month);
  }
  const cutoffDay = cutoff.slice(0, 10);
  const sweptDay = await readSweepCursor(ctx.store, daySweep);
  if (sweptDay === undefined || sweptDay < cutoffDay) {
    removed += await sweepMonth(ctx, partialMonth, cutoff);
    await saveSweepCursor(ctx.store, daySweep, cutoffDay);
  }
  return removed;
}

const day = 24 * 60 * 60 * 1000;
/** How far before the cutoff a sweep with no cursor yet starts (one that ever ran has one). */
const firstLookBack = 366 * day;
const monthSweep = "audit-sweep";
/** The last cutoff day the month it falls in was swept up to. */
const daySweep = "audit-sweep-day";
const pageSize = 100;

function startOfDay(time: number): number {
  return time - (((time % day) + day) % day);
}

function nextMonth(month: string): string {
  const date = new Date(`${month}-01T00:00:00.000Z`);
  date.setUTCMonth(date.getUTCMonth() + 1);
  return date.toISOString().slice(0, 7);
}

/** Deletes the entries older than `cutoff` of each form noted in `month`. */
async function sweepMonth(ctx: Context, month: string, cutoff: string): Promise<number> {
  const notes = await queryAll<AuditMonthNote>(ctx.store, collections.auditMonths, month);
  let removed = 0;
  for (const note of notes) removed += await sweepForm(ctx, note.id, cutoff);
  return removed;
}

/**
 * Deletes the entries of `formId` written before `cutoff`, a page of 100 at a time, each page
 * in one batch (one transactional batch on Cosmos DB). The first page is read again after
 * each: what is deleted leaves the query, so no continuation is needed.
 */
async function sweepForm(ctx: Context, formId: string, cutoff: string): Promise<number> {
  let removed = 0;
  for (;;) {
    const page = await ctx.store.query<AuditEntry>(collections.auditEntries, formId, {
      where: [{ field: "at", op: "lt", value: cutoff }],
      limit: pageSize,
    });
    if (page.items.length === 0) return removed;
    const ops: BatchOp[] = page.items.map(({ record }) => ({
      op: "delete",
      collection: collections.auditEntries,
      partition: formId,
      id: record.id,
    }));
    try {
      await ctx.store.batch(ops);
      removed += ops.length;
    } catch (error) {
      // Another instance sweeps the same form: delete what is left one by one.
      if (!(error instanceof StoreConflictError)) throw error;
      for (const { record } of page.items) {
        if (await ctx.store.delete(collections.auditEntries, formId, record.id)) removed += 1;
      }
    }
  }
}
