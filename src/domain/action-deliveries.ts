import type { Caller } from "../auth/caller.ts";
import type { Context } from "../context.ts";
import { accessForm, requireRole } from "./form-access.ts";
import { deliveryPage } from "./webhook-deliveries.ts";
import { actionLogId } from "./webhook-outbox.ts";

/** The form actions with a delivery log: its confirmation e-mails and destination posts. */
export const loggedActions = ["email", "destination"] as const;

/**
 * Extension: one page of a form's confirmation e-mails or destination posts, newest first,
 * each with its status and every attempt (the first one made within S2), as the webhook
 * deliveries list shows a webhook's. Same role: `has_account_management`.
 */
export async function listActionDeliveries(
  ctx: Context,
  caller: Caller,
  formId: string,
  action: (typeof loggedActions)[number],
  page: { batchSize: number; continuationToken?: string },
) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  return deliveryPage(ctx, actionLogId(action, formId), page);
}
