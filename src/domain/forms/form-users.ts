import { ConflictError, ForbiddenError, NotFoundError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import { createdAt } from "../../kernel/timestamps.ts";
import { type Caller, normaliseEmail } from "../accounts/caller.ts";
import { type AuditSource, appendAudit } from "../audit/index.ts";
import type { Context } from "../context.ts";
import { withQuota } from "../quotas/quotas.ts";
import { collections } from "../records/collections.ts";
import { accessForm, requireRole } from "./form-access.ts";
import { type FormRecord, type FormUserRecord, formSummary } from "./form-record.ts";
import {
  addMembership,
  claimMembership,
  emailPrincipal,
  ownerPrincipal,
  removeMembership,
} from "./memberships.ts";
import { allRoles, type RoleFlags, roleNames } from "./roles.ts";

/**
 * The quota collaborators count against: those granted `has_account_management` (each grant
 * on each form of the owner counts once).
 */
const adminQuota = "total_admin_collaborators";

/** Records the owner of a new form as its first user, granted by user id with every role. */
export async function createOwnerRecord(ctx: Context, form: FormRecord) {
  await ctx.store.create<FormUserRecord>(collections.formUsers, form.id, {
    form_id: form.id,
    granted_to_user_id: form.owner_user_id,
    ...allRoles(),
    id: newId(),
    ...createdAt(ctx.now()),
  });
  await addMembership(ctx, ownerPrincipal(form.owner_user_id), form.id);
}

/** U1: the form's users, the form's basics and the caller's roles. */
export async function listFormUsers(ctx: Context, caller: Caller, formId: string) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  const { items } = await ctx.store.query<FormUserRecord>(collections.formUsers, formId, {
    orderBy: { field: "created_date_utc" },
  });
  return {
    results: items.map(({ record }) => record),
    form_document_basic: formSummary(access.form, false),
    granted_form_roles: roleNames.filter((role) => access.roles.has(role)),
  };
}

/**
 * U2: grants roles on a form to an e-mail address, recorded in the audit trail with the
 * record's id and the address (docs/design.md §25).
 * @throws {ConflictError} when that address already has a record on the form.
 */
export async function addFormUser(
  ctx: Context,
  caller: Caller,
  formId: string,
  email: string,
  roles: RoleFlags,
  source: AuditSource,
): Promise<FormUserRecord> {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  const address = normaliseEmail(email);
  // The membership record is created first and only once: it is what keeps two concurrent
  // grants to one address from both succeeding.
  if (!(await claimMembership(ctx, emailPrincipal(address), formId))) {
    throw new ConflictError("This collaborator is already on the form");
  }
  const record: FormUserRecord = {
    form_id: formId,
    granted_to_email_address: address,
    granted_by_user_id: caller.userId,
    ...roles,
    id: newId(),
    ...createdAt(ctx.now()),
  };
  try {
    await withQuota(
      ctx,
      access.form.owner_user_id,
      adminQuota,
      Number(roles.has_account_management),
      () => ctx.store.create(collections.formUsers, formId, record),
    );
  } catch (error) {
    await removeMembership(ctx, emailPrincipal(address), formId);
    throw error;
  }
  await appendAudit(ctx, formId, source, "collaborator_added", [record.id, address]);
  return record;
}

/** U3: changes the roles of a form user; flags left out stay as they are. Audited. */
export async function updateFormUser(
  ctx: Context,
  caller: Caller,
  formId: string,
  userSecurityId: string,
  roles: Partial<RoleFlags>,
  source: AuditSource,
) {
  const entry = await collaborator(ctx, caller, formId, userSecurityId);
  const next = { ...entry.record, ...roles, modified_date_utc: ctx.now().toISOString() };
  const delta = Number(next.has_account_management) - Number(entry.record.has_account_management);
  const saved = await withQuota(ctx, entry.ownerUserId, adminQuota, delta, () =>
    ctx.store.replace(collections.formUsers, formId, next, { ifMatch: entry.etag }),
  );
  if (!saved) throw formUserNotFound();
  await appendAudit(ctx, formId, source, "collaborator_changed", grantee(entry.record));
}

/** U4: takes a user off a form. Audited. */
export async function removeFormUser(
  ctx: Context,
  caller: Caller,
  formId: string,
  userSecurityId: string,
  source: AuditSource,
) {
  const { record, etag, ownerUserId } = await collaborator(ctx, caller, formId, userSecurityId);
  // The record decides access, so it goes first; a membership left behind only lists a form
  // that F4 then checks and skips.
  await withQuota(ctx, ownerUserId, adminQuota, -Number(record.has_account_management), () =>
    ctx.store.delete(collections.formUsers, formId, userSecurityId, { ifMatch: etag }),
  );
  await removeMembership(ctx, emailPrincipal(record.granted_to_email_address ?? ""), formId);
  await appendAudit(ctx, formId, source, "collaborator_removed", grantee(record));
}

/** A form user's audit targets: its record's id, and the user id or address it grants to. */
function grantee(record: FormUserRecord): string[] {
  const to = record.granted_to_user_id ?? record.granted_to_email_address;
  return to ? [record.id, to] : [record.id];
}

async function collaborator(ctx: Context, caller: Caller, formId: string, userSecurityId: string) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  const entry = await ctx.store.get<FormUserRecord>(collections.formUsers, formId, userSecurityId);
  if (!entry) throw formUserNotFound();
  if (entry.record.granted_to_user_id === access.form.owner_user_id) {
    throw new ForbiddenError("The form owner's access cannot be changed");
  }
  return { ...entry, ownerUserId: access.form.owner_user_id };
}

function formUserNotFound(): NotFoundError {
  return new NotFoundError("Form user not found");
}
