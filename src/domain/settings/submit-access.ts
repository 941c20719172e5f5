import { ServiceError, UnauthorizedError } from "../../kernel/errors.ts";
import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import {
  type FormAccess,
  formNotFound,
  type LoadedForm,
  loadAccess,
} from "../forms/form-access.ts";
import { loginRequired } from "./sections/security.ts";

/**
 * Loads a form for the public side (F5, S2, S3): anyone while it is enabled and does not
 * require login; otherwise its owner or a holder of a submission role. With `loaded`, the
 * form is that one rather than read from the store.
 */
export async function accessFormToSubmit(
  ctx: Context,
  caller: Caller | null,
  formId: string,
  loaded?: LoadedForm,
): Promise<FormAccess> {
  const access = await loadAccess(ctx, caller, formId, loaded);
  if (access.isOwner || access.roles.has("has_form_submission")) return access;
  if (access.roles.has("has_offline_form_submission")) return access;
  const requiresLogin = loginRequired(access.form);
  if (requiresLogin && !caller) throw new UnauthorizedError("This form requires signing in");
  if (requiresLogin) throw formNotFound();
  if (access.form.form_configuration.settings.is_disabled) {
    throw new ServiceError("form_disabled", "This form is disabled");
  }
  return access;
}
