/** The role names of the interface, as used in `granted_form_roles`. */
export const roleNames = [
  "has_account_management",
  "has_form_editor",
  "has_form_submission",
  "has_offline_form_submission",
  "has_reporting_full",
] as const;

/** One role on a form. */
export type Role = (typeof roleNames)[number];

/** The five role flags of a form user security record. */
export type RoleFlags = Record<Role, boolean>;

/** Flags with every role granted, as the owner has. */
export function allRoles(): RoleFlags {
  return Object.fromEntries(roleNames.map((role) => [role, true])) as RoleFlags;
}

/** The roles whose flag is set. */
export function grantedRoles(flags: RoleFlags): Role[] {
  return roleNames.filter((role) => flags[role]);
}
