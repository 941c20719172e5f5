import { NotFoundError } from "../../kernel/errors.ts";
import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import { accessForm, type FormAccess } from "../forms/form-access.ts";
import { formIdsOf } from "../forms/memberships.ts";

/**
 * The forms an erasure or access request by respondent covers (docs/design.md §6): those the
 * caller owns or holds `has_account_management` on, as F4 finds them, oldest id first. A
 * partner acting for a customer calls as that customer, so covers the customer's forms.
 */
export async function respondentForms(ctx: Context, caller: Caller): Promise<FormAccess[]> {
  const forms: FormAccess[] = [];
  for (const formId of await formIdsOf(ctx, caller)) {
    // The index may name a form that was deleted or a grant that was revoked since.
    const access = await accessForm(ctx, caller, formId).catch((error: unknown) => {
      if (error instanceof NotFoundError) return null;
      throw error;
    });
    if (access && (access.isOwner || access.roles.has("has_account_management"))) {
      forms.push(access);
    }
  }
  return forms;
}
