import { NotFoundError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import { createdAt, type Timestamps } from "../../kernel/timestamps.ts";
import { queryAll } from "../../ports/query-all.ts";
import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import { dropQuotaCount, giveBackQuota, withQuota } from "../quotas/quotas.ts";
import { collections } from "../records/collections.ts";

/** The values of `list_type` we accept: the one the hosted service is seen to use. */
export const listTypes = ["alphanumeric"] as const;

/** A datalist's settings. */
export interface DatalistSettings {
  list_name: string;
  list_description: string;
  list_type: (typeof listTypes)[number];
}

/** A stored datalist. Partition: its owner's user id, so a caller only ever reads their own. */
export interface DatalistRecord extends Timestamps {
  settings: DatalistSettings;
  id: string;
}

/** D1: creates a datalist owned by the caller. */
export async function createDatalist(ctx: Context, caller: Caller, settings: DatalistSettings) {
  const record: DatalistRecord = { settings, id: newId(), ...createdAt(ctx.now()) };
  await withQuota(ctx, caller.userId, "total_datalists", 1, () =>
    ctx.store.create(collections.datalists, caller.userId, record),
  );
  return record;
}

/**
 * Reads one of the caller's datalists.
 * @throws {NotFoundError} when it does not exist or belongs to someone else.
 */
export async function getDatalist(ctx: Context, caller: Caller, datalistId: string) {
  const entry = await ctx.store.get<DatalistRecord>(
    collections.datalists,
    caller.userId,
    datalistId,
  );
  if (!entry) throw new NotFoundError("Datalist not found");
  return entry;
}

/**
 * Whether `datalistId` names a datalist of `ownerId`. A form draws options only from its
 * owner's datalists (docs/design.md §3), whatever its stored definition names: a clone (F1) keeps
 * the datalist ids of the form it copied, which belong to that form's owner.
 */
export async function ownsDatalist(ctx: Context, ownerId: string, datalistId: string) {
  return (await ctx.store.get(collections.datalists, ownerId, datalistId)) !== null;
}

/** D2: changes the settings given; the others stay. */
export async function updateDatalist(
  ctx: Context,
  caller: Caller,
  datalistId: string,
  settings: Partial<DatalistSettings>,
) {
  const { record, etag } = await getDatalist(ctx, caller, datalistId);
  const next: DatalistRecord = {
    ...record,
    settings: { ...record.settings, ...settings },
    modified_date_utc: ctx.now().toISOString(),
  };
  const saved = await ctx.store.replace(collections.datalists, caller.userId, next, {
    ifMatch: etag,
  });
  if (!saved) throw new NotFoundError("Datalist not found");
  return saved.record;
}

/**
 * D3: deletes a datalist and all its entries. The datalist goes first, so that nobody can
 * add entries to it while they are being removed.
 */
export async function deleteDatalist(ctx: Context, caller: Caller, datalistId: string) {
  const { record } = await getDatalist(ctx, caller, datalistId);
  if (await ctx.store.delete(collections.datalists, caller.userId, datalistId)) {
    await giveBackQuota(ctx, caller.userId, "total_datalists");
    await dropQuotaCount(ctx, caller.userId, "total_datalist_entries_per_datalist", datalistId);
  }
  await ctx.store.deletePartition(collections.datalistEntries, datalistId);
  return record;
}

/** D4: the caller's datalists, oldest first, with the ids by access kind. */
export async function listDatalists(ctx: Context, caller: Caller) {
  const results = await queryAll<DatalistRecord>(ctx.store, collections.datalists, caller.userId, {
    orderBy: { field: "created_date_utc" },
  });
  const ids = results.map((list) => list.id);
  return {
    results,
    accessible_datalist_ids_edit_access: ids,
    accessible_datalist_ids_account_management_access: [...ids],
    accessible_datalist_ids_full_reporting_access: [...ids],
  };
}
