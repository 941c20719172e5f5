import { ForbiddenError, NotFoundError } from "../../kernel/errors.ts";
import type { Caller } from "../accounts/caller.ts";
import { formsOpenToOthers } from "../accounts/customers.ts";
import { sameTenant } from "../accounts/tenants.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import { type FormRecord, type FormUserRecord, withinBounds } from "./form-record.ts";
import { type Role, roleNames } from "./roles.ts";

/** A form as one caller may reach it. */
export interface FormAccess {
  form: FormRecord;
  /** The form record's etag, for conditional writes. */
  etag: string;
  isOwner: boolean;
  /** The caller's roles; the owner holds all five. */
  roles: ReadonlySet<Role>;
}

/**
 * Loads a form for a signed-in caller who must hold some role on it.
 * @throws {NotFoundError} when the form does not exist or the caller holds no role on it:
 *   a form one may not see answers exactly as a missing one.
 */
export async function accessForm(
  ctx: Context,
  caller: Caller,
  formId: string,
): Promise<FormAccess> {
  const access = await loadAccess(ctx, caller, formId);
  if (!access.isOwner && access.roles.size === 0) throw formNotFound();
  return access;
}

/**
 * Requires the owner or one of `anyOf`.
 * @throws {ForbiddenError} otherwise.
 */
export function requireRole(access: FormAccess, ...anyOf: Role[]): void {
  if (access.isOwner || anyOf.some((role) => access.roles.has(role))) return;
  throw new ForbiddenError("You do not have the role this needs on the form");
}

/** A form record already read, with its etag, and within bounds (`withinBounds`). */
export interface LoadedForm {
  form: FormRecord;
  etag: string;
}

/** The roles of a caller who holds none: one set for every such request. */
const noRoles: ReadonlySet<Role> = new Set();

/**
 * Loads a form with the roles `caller` holds on it (none for an anonymous caller), the
 * paying rule applied; with `loaded`, the form is that one rather than read from the store.
 * @throws {NotFoundError} when the form does not exist or is hidden from the caller.
 */
export async function loadAccess(
  ctx: Context,
  caller: Caller | null,
  formId: string,
  loaded?: LoadedForm,
): Promise<FormAccess> {
  const entry = loaded ?? (await readForm(ctx, formId));
  if (!entry) throw formNotFound();
  const { form } = entry;
  const isOwner = caller !== null && form.owner_user_id === caller.userId;
  // The paying rule: a form of a customer who is not paying is hidden from everyone else.
  if (!isOwner && !(await formsOpenToOthers(ctx, form.owner_user_id))) throw formNotFound();
  const roles = isOwner
    ? new Set(roleNames)
    : caller && sameTenant(form.owner_user_id, caller.userId)
      ? await rolesOf(ctx, formId, caller)
      : noRoles;
  return { form, etag: entry.etag, isOwner, roles };
}

/**
 * Reads a form as the service uses it, bounded (`withinBounds`): with no access check, for the
 * service's own work (the retention sweep, an erasure's job). `null` when there is none.
 */
export async function readForm(ctx: Context, formId: string): Promise<LoadedForm | null> {
  const entry = await ctx.store.get<FormRecord>(collections.forms, formId, formId);
  return entry && { form: withinBounds(entry.record), etag: entry.etag };
}

async function rolesOf(ctx: Context, formId: string, caller: Caller): Promise<Set<Role>> {
  // A form has few users (their number is a quota), so one partition read beats two queries.
  const { items } = await ctx.store.query<FormUserRecord>(collections.formUsers, formId);
  const roles = new Set<Role>();
  for (const { record: user } of items) {
    const mine =
      user.granted_to_user_id === caller.userId || user.granted_to_email_address === caller.email;
    if (mine) for (const role of roleNames) if (user[role]) roles.add(role);
  }
  return roles;
}

/** The 404 of a form that is missing or hidden from the caller. */
export function formNotFound(): NotFoundError {
  return new NotFoundError("Form not found");
}

/** A form for its reports (S1, S4–S7): the owner's, or one granted `has_reporting_full`. */
export async function accessFormToReport(
  ctx: Context,
  caller: Caller,
  formId: string,
): Promise<FormAccess> {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_reporting_full");
  return access;
}

/**
 * A form for its account management (the audit trail): the owner's, or one granted
 * `has_account_management`.
 */
export async function accessFormToManage(
  ctx: Context,
  caller: Caller,
  formId: string,
): Promise<FormAccess> {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  return access;
}
