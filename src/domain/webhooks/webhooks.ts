import { randomBytes } from "node:crypto";
import { NotFoundError } from "../../kernel/errors.ts";
import { newId } from "../../kernel/ids.ts";
import { createdAt } from "../../kernel/timestamps.ts";
import type { Caller } from "../accounts/caller.ts";
import { type AuditSource, appendAudit, auditOp } from "../audit/index.ts";
import type { Context } from "../context.ts";
import { accessForm, requireRole } from "../forms/form-access.ts";
import { formChanged } from "../forms/form-snapshots.ts";
import { collections } from "../records/collections.ts";
import {
  defaultWebhookEvents,
  eventsOf,
  type WebhookEvent,
  type WebhookRecord,
} from "../records/webhook-record.ts";
import { refuseUncallable } from "../settings/destination-check.ts";

/** What W2 takes, once parsed. */
export interface WebhookInput {
  webhook_name: string;
  webhook_destination_url?: string;
  webhook_url?: string;
  http_header_key: string;
  http_header_value: string;
  /** The events it is called for; absent: a new submission only. */
  events?: WebhookEvent[];
}

/**
 * W1: the form's webhooks, secrets included, each with the events it is called for (those
 * added before there was a choice: a new submission). Owner or account manager.
 */
export async function listWebhooks(ctx: Context, caller: Caller, formId: string) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  const { items } = await ctx.store.query<WebhookRecord>(collections.webhooks, formId, {
    orderBy: { field: "created_date_utc" },
  });
  return items.map(({ record }) => ({ ...record, events: [...eventsOf(record)] }));
}

/**
 * W2: adds a webhook after checking that its destination is http(s) and, unless private
 * destinations are allowed, resolves only to public addresses. Its audit entry is created in
 * the same batch, in the form's partition (docs/design.md §25).
 */
export async function addWebhook(
  ctx: Context,
  caller: Caller,
  formId: string,
  input: WebhookInput,
  source: AuditSource,
): Promise<WebhookRecord> {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  const destination = input.webhook_destination_url ?? input.webhook_url ?? "";
  await refuseUncallable(ctx, "webhook destination", {
    path: "webhook_destination_url",
    url: destination,
  });
  const record: WebhookRecord = {
    id: newId(),
    form_id: formId,
    created_by_user_id: caller.userId,
    webhook_name: input.webhook_name,
    webhook_destination_url: destination,
    http_header_key: input.http_header_key,
    http_header_value: input.http_header_value,
    webhook_shared_secret: `whsec_${randomBytes(32).toString("base64")}`,
    events: [...(input.events ?? defaultWebhookEvents)],
    ...createdAt(ctx.now()),
  };
  await ctx.store.batch([
    { op: "create", collection: collections.webhooks, partition: formId, record },
    await auditOp(ctx, formId, source, "webhook_added", [record.id]),
  ]);
  await formChanged(ctx, formId);
  return record;
}

/**
 * W3: removes a webhook with its delivery history; queued deliveries to it are dropped.
 * Audited once done.
 */
export async function removeWebhook(
  ctx: Context,
  caller: Caller,
  formId: string,
  webhookId: string,
  source: AuditSource,
) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  if (!(await ctx.store.delete(collections.webhooks, formId, webhookId))) {
    throw new NotFoundError("Webhook not found");
  }
  await formChanged(ctx, formId);
  await ctx.store.deletePartition(collections.webhookDeliveries, webhookId);
  await appendAudit(ctx, formId, source, "webhook_removed", [webhookId]);
}

/** Reads one webhook of a form. @throws {NotFoundError} when there is none. */
export async function readWebhook(ctx: Context, formId: string, webhookId: string) {
  const stored = await ctx.store.get<WebhookRecord>(collections.webhooks, formId, webhookId);
  if (!stored) throw new NotFoundError("Webhook not found");
  return stored.record;
}
