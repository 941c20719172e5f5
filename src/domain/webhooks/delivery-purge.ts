import { queryAll } from "../../ports/query-all.ts";
import type { Context } from "../context.ts";
import { collections } from "../records/collections.ts";
import type { WebhookRecord } from "../records/webhook-record.ts";
import { loggedActions } from "./action-deliveries.ts";
import { legacyOutboxPartition, outboxPartitionOf } from "./outbox-partitions.ts";
import { actionLogId, type DeliveryRecord } from "./webhook-outbox.ts";

/**
 * Deletes the deliveries of a deleted submission (docs/design.md §14), pending or finished,
 * since their payloads hold its values: from each log of the form (its webhooks', `webhookIds`
 * when known, else read; its e-mails' and destination posts'), each record and then its
 * outbox entry. The `form_submission.deleted` deliveries stay: they hold the id alone, and
 * announce the deletion. Each step may run again: a crash between the two leaves an entry
 * without its record, which the worker ends (outbox-delivery.ts). A worker holding a deleted
 * entry loses its claim and writes nothing.
 * @returns how many deliveries it deleted.
 */
export async function purgeDeliveries(
  ctx: Context,
  formId: string,
  submissionId: string,
  webhookIds?: readonly string[],
): Promise<number> {
  const hooks =
    webhookIds ??
    (await queryAll<WebhookRecord>(ctx.store, collections.webhooks, formId)).map(({ id }) => id);
  const logs = [...hooks, ...loggedActions.map((action) => actionLogId(action, formId))];
  let purged = 0;
  for (const log of logs) {
    const deliveries = await queryAll<DeliveryRecord>(
      ctx.store,
      collections.webhookDeliveries,
      log,
      {
        where: [{ field: "submission_id", op: "eq", value: submissionId }],
      },
    );
    for (const delivery of deliveries) {
      if (delivery.event_type === "form_submission.deleted") continue;
      await forgetDelivery(ctx, delivery);
      purged++;
    }
  }
  return purged;
}

/** Deletes a delivery's record, then its outbox entry (in the legacy partition too while pending). */
export async function forgetDelivery(ctx: Context, delivery: DeliveryRecord) {
  await ctx.store.delete(collections.webhookDeliveries, delivery.webhook_id, delivery.id);
  await ctx.store.delete(collections.webhookOutbox, outboxPartitionOf(delivery.id), delivery.id);
  if (delivery.status === "pending") {
    await ctx.store.delete(collections.webhookOutbox, legacyOutboxPartition, delivery.id);
  }
}
