import { ServiceError } from "../../kernel/errors.ts";
import type { BatchOp } from "../../ports/store.ts";
import { customerOf, partnerIdOf } from "../accounts/customers.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { type QuotaName, quotaBodyField, quotaField } from "../records/customer-quotas.ts";
import { adjustCount, type CounterKey, counterOp, counterToWrite } from "./counters.ts";

/**
 * Quotas of partner customers (interface: Limits). What a customer uses is kept in counter
 * records (`customer_counters`, partitioned by the customer's user id) and changed only by
 * conditional writes (`adjustCount`), so concurrent requests never pass a quota together:
 * a request takes its share first, and gives it back when it ends up storing nothing.
 * Local accounts have no quotas: for them every call here does nothing.
 */

/** A share of a quota taken by {@link takeQuota}. */
export interface QuotaReservation {
  /** Gives the share back; only the first call does anything. */
  giveBack(): Promise<void>;
}

/** What each quota counts, as [one, other] for English plural rules ("at most 1 form"). */
const phrases: Record<QuotaName, [one: string, other: string]> = {
  monthly_form_submissions: [
    "submission to its forms this month",
    "submissions to its forms this month",
  ],
  total_forms: ["form", "forms"],
  total_datalists: ["datalist", "datalists"],
  total_datalist_entries_per_datalist: ["entry in one datalist", "entries in one datalist"],
  total_file_storage: ["byte of stored files", "bytes of stored files"],
  total_admin_collaborators: [
    "admin collaborator on its forms",
    "admin collaborators on its forms",
  ],
};
const pluralRules = new Intl.PluralRules("en");

/**
 * Takes `amount` of a quota for the account `ownerUserId`. `scope` names what a scoped
 * quota counts for (the datalist of `total_datalist_entries_per_datalist`); the monthly
 * quota counts for the current month (UTC) by itself.
 * @throws {ServiceError} `quota_exceeded` (403), taking nothing, when the account would
 *   pass its quota.
 */
export async function takeQuota(
  ctx: Context,
  ownerUserId: string,
  quota: QuotaName,
  amount = 1,
  scope = "",
): Promise<QuotaReservation> {
  if (amount <= 0 || !partnerIdOf(ownerUserId)) return nothingTaken;
  const customer = await customerOf(ctx, ownerUserId);
  if (!customer) return nothingTaken;
  const limit = Number(customer[quotaField(quota)]);
  const key = quotaCounter(ownerUserId, quota, scopeOf(ctx, quota, scope));
  if (!(await adjustCount(ctx, key, "used", amount, limit))) throw quotaExceeded(quota, limit);
  let held = true;
  return {
    async giveBack() {
      if (!held) return;
      held = false;
      await adjustCount(ctx, key, "used", -amount);
    },
  };
}

/**
 * Reads what the account `ownerUserId` uses of a quota and answers the batch op that takes
 * `amount` more of it, conditional on the counter as read, to write in one `Store.batch`
 * with the record it counts (S2 and the monthly quota): a crash then leaves both or
 * neither. A batch that fails on that condition must read again (call this again).
 * @returns the op, or `null` when the account has no such quota (a local account)
 * @throws {ServiceError} `quota_exceeded` (403) when the account would pass its quota
 */
export async function quotaOp(
  ctx: Context,
  ownerUserId: string,
  quota: QuotaName,
  amount = 1,
  scope = "",
): Promise<BatchOp | null> {
  if (amount <= 0 || !partnerIdOf(ownerUserId)) return null;
  const customer = await customerOf(ctx, ownerUserId);
  if (!customer) return null;
  const limit = Number(customer[quotaField(quota)]);
  const key = quotaCounter(ownerUserId, quota, scopeOf(ctx, quota, scope));
  const stored = await counterToWrite(ctx, key);
  const used = stored.record.counts.used ?? 0;
  if (used + amount > limit) throw quotaExceeded(quota, limit);
  return counterOp(key, stored, { ...stored.record.counts, used: used + amount });
}

/** Gives back `amount` of a quota, for a record of the account that was removed. */
export async function giveBackQuota(
  ctx: Context,
  ownerUserId: string,
  quota: QuotaName,
  amount = 1,
  scope = "",
): Promise<void> {
  if (amount <= 0 || !partnerIdOf(ownerUserId)) return;
  await adjustCount(
    ctx,
    quotaCounter(ownerUserId, quota, scopeOf(ctx, quota, scope)),
    "used",
    -amount,
  );
}

/**
 * Runs a write that changes by `delta` what the account uses of a quota. A positive change
 * is taken before the write and given back when the write fails or writes nothing (a falsy
 * result: `null` of a replace, `false` of a delete); a negative one is given back after a
 * write that did something.
 */
export async function withQuota<T>(
  ctx: Context,
  ownerUserId: string,
  quota: QuotaName,
  delta: number,
  write: () => Promise<T>,
  scope = "",
): Promise<T> {
  const reservation = await takeQuota(ctx, ownerUserId, quota, delta, scope);
  let result: T;
  try {
    result = await write();
  } catch (error) {
    await reservation.giveBack();
    throw error;
  }
  if (!result) await reservation.giveBack();
  else if (delta < 0) await giveBackQuota(ctx, ownerUserId, quota, -delta, scope);
  return result;
}

/** Forgets the count of a scoped quota whose scope is gone (the entries of a deleted datalist). */
export async function dropQuotaCount(
  ctx: Context,
  ownerUserId: string,
  quota: QuotaName,
  scope: string,
): Promise<void> {
  if (!partnerIdOf(ownerUserId)) return;
  const key = quotaCounter(ownerUserId, quota, scope);
  await ctx.store.delete(key.collection, key.partition, key.id);
}

/** The counter record of one quota of an account: `<quota>` or `<quota>:<scope>`. */
export function quotaCounter(ownerUserId: string, quota: QuotaName, scope = ""): CounterKey {
  const id = scope ? `${quota}:${scope}` : quota;
  return { collection: collections.customerCounters, partition: ownerUserId, id };
}

/** The 403 of a quota the account has reached. */
export function quotaExceeded(quota: QuotaName, limit: number): ServiceError {
  return new ServiceError(
    "quota_exceeded",
    `Quota exceeded: the account may have at most ${limit} ${phrase(quota, limit)} (${quotaBodyField(quota)})`,
  );
}

function phrase(quota: QuotaName, count: number): string {
  const [one, other] = phrases[quota];
  return pluralRules.select(count) === "one" ? one : other;
}

function scopeOf(ctx: Context, quota: QuotaName, scope: string): string {
  return quota === "monthly_form_submissions" ? ctx.now().toISOString().slice(0, 7) : scope;
}

const nothingTaken: QuotaReservation = { giveBack: async () => {} };
