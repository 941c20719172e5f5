import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import { accessForm, requireRole } from "../forms/form-access.ts";
import { deliveryPage, queueAgain } from "./webhook-deliveries.ts";
import { actionLogId } from "./webhook-outbox.ts";

/** The form actions with a delivery log: its confirmation e-mails and destination posts. */
export const loggedActions = ["email", "destination"] as const;

/** One of {@link loggedActions}. */
export type LoggedAction = (typeof loggedActions)[number];

/**
 * Extension: one page of a form's confirmation e-mails or destination posts, newest first,
 * each with its status and every attempt (the first one made within S2), as the webhook
 * deliveries list shows a webhook's. Same role: `has_account_management`.
 */
export async function listActionDeliveries(
  ctx: Context,
  caller: Caller,
  formId: string,
  action: LoggedAction,
  page: { batchSize: number; continuationToken?: string },
) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  return deliveryPage(ctx, actionLogId(action, formId), page);
}

/**
 * Extension: sends a finished confirmation e-mail or destination post again, as the webhook
 * redelivery does: same body, a fresh round of attempts, its history kept. An e-mail keeps
 * its Message-ID (its delivery id), as a webhook keeps its `webhook-id`: it is the same
 * message again. A destination post is sent to the form's destination as it is now.
 * Role `has_account_management`, as the list.
 * @throws {ConflictError} while the delivery is still pending.
 */
export async function redeliverAction(
  ctx: Context,
  caller: Caller,
  formId: string,
  action: LoggedAction,
  deliveryId: string,
) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  return queueAgain(ctx, actionLogId(action, formId), deliveryId);
}
