import { NotFoundError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import { createdAt, type Timestamps } from "../../kernel/timestamps.ts";
import { queryAll } from "../../ports/query-all.ts";
import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import { giveBackQuota, takeQuota } from "../quotas/quotas.ts";
import { collections } from "../records/collections.ts";
import type { Device } from "../records/device.ts";
import { getDatalist } from "./datalists.ts";

/** A stored datalist entry item. Partition: its datalist id. */
export interface DatalistEntryRecord extends Timestamps {
  datalist_id: string;
  created_by_verified_email_address: string;
  created_by_device: Device;
  sort_order: number;
  entry_value: string;
  id: string;
}

/** One item to insert; without `sort_order` it goes after the last entry. */
export interface EntryInput {
  entry_value: string;
  sort_order?: number;
}

/** D5: inserts entry items into one of the caller's datalists. @returns their ids, in order. */
export async function insertEntries(
  ctx: Context,
  caller: Caller,
  datalistId: string,
  items: EntryInput[],
  device: Device,
): Promise<string[]> {
  await getDatalist(ctx, caller, datalistId);
  const quota = "total_datalist_entries_per_datalist";
  const reserved = await takeQuota(ctx, caller.userId, quota, items.length, datalistId);
  let next = (await lastSortOrder(ctx, datalistId)) + 1;
  const ids: string[] = [];
  try {
    for (const item of items) {
      const sort_order = item.sort_order ?? next;
      next = Math.max(next, sort_order) + 1;
      const record: DatalistEntryRecord = {
        datalist_id: datalistId,
        created_by_verified_email_address: caller.email,
        created_by_device: device,
        sort_order,
        entry_value: item.entry_value,
        id: newId(),
        ...createdAt(ctx.now()),
      };
      await ctx.store.create(collections.datalistEntries, datalistId, record);
      ids.push(record.id);
    }
  } catch (error) {
    // All or nothing: a call that fails part way takes back the items it had inserted.
    for (const id of ids) await ctx.store.delete(collections.datalistEntries, datalistId, id);
    await reserved.giveBack();
    throw error;
  }
  return ids;
}

async function lastSortOrder(ctx: Context, datalistId: string): Promise<number> {
  const { items } = await ctx.store.query<DatalistEntryRecord>(
    collections.datalistEntries,
    datalistId,
    {
      orderBy: { field: "sort_order", direction: "desc" },
      limit: 1,
    },
  );
  return items[0]?.record.sort_order ?? 0;
}

/** D6: deletes one entry of one of the caller's datalists. */
export async function deleteEntry(
  ctx: Context,
  caller: Caller,
  datalistId: string,
  entryId: string,
) {
  await getDatalist(ctx, caller, datalistId);
  if (!(await ctx.store.delete(collections.datalistEntries, datalistId, entryId))) {
    throw new NotFoundError("Datalist entry not found");
  }
  await giveBackQuota(ctx, caller.userId, "total_datalist_entries_per_datalist", 1, datalistId);
}

/** D7: the entries of one of the caller's datalists, in ascending `sort_order`. */
export async function listEntries(ctx: Context, caller: Caller, datalistId: string) {
  await getDatalist(ctx, caller, datalistId);
  return { results: await allEntries(ctx, datalistId), has_edit_access: true };
}

/** The values of a datalist's entries in order, for rendering a form field. */
export async function listEntryValues(ctx: Context, datalistId: string): Promise<string[]> {
  return (await allEntries(ctx, datalistId)).map((entry) => entry.entry_value);
}

function allEntries(ctx: Context, datalistId: string): Promise<DatalistEntryRecord[]> {
  return queryAll<DatalistEntryRecord>(ctx.store, collections.datalistEntries, datalistId, {
    orderBy: { field: "sort_order" },
  });
}
