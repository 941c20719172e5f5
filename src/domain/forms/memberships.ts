import { queryAll } from "../../ports/query-all.ts";
import { StoreConflictError } from "../../ports/store.ts";
import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";

/**
 * The index behind F4: which forms a principal may reach. A principal is an account
 * (`user:<id>`, for forms it owns) or an e-mail (`email:<e-mail>`, for grants). The index
 * only says where to look; access itself is always decided from the form's own records.
 */
interface MembershipRecord {
  /** The form id. */
  id: string;
}

/** The membership partition of an owner. */
export function ownerPrincipal(userId: string): string {
  return `user:${userId}`;
}

/** The membership partition of an e-mail grant. */
export function emailPrincipal(email: string): string {
  return `email:${email}`;
}

/** Records that `principal` may reach `formId`; adding it twice is harmless. */
export async function addMembership(ctx: Context, principal: string, formId: string) {
  await claimMembership(ctx, principal, formId);
}

/**
 * Records that `principal` may reach `formId`, only if it was not recorded yet.
 * @returns `false` when it already was.
 */
export async function claimMembership(ctx: Context, principal: string, formId: string) {
  try {
    await ctx.store.create<MembershipRecord>(collections.memberships, principal, { id: formId });
    return true;
  } catch (error) {
    if (error instanceof StoreConflictError) return false;
    throw error;
  }
}

/** Forgets that `principal` may reach `formId`. */
export async function removeMembership(ctx: Context, principal: string, formId: string) {
  await ctx.store.delete(collections.memberships, principal, formId);
}

/** Ids of the forms the caller owns or was granted by e-mail, oldest first, without repeats. */
export async function formIdsOf(ctx: Context, caller: Caller): Promise<string[]> {
  const ids = new Set<string>();
  for (const principal of [ownerPrincipal(caller.userId), emailPrincipal(caller.email)]) {
    const items = await queryAll<MembershipRecord>(ctx.store, collections.memberships, principal);
    for (const item of items) ids.add(item.id);
  }
  return [...ids].sort();
}
