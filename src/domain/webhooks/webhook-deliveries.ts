import { ConflictError, NotFoundError } from "../../kernel/errors.ts";
import { retryOnConflict } from "../../ports/conflict-retries.ts";
import { StoreConflictError, type Stored } from "../../ports/store.ts";
import { updateRecord } from "../../ports/update-record.ts";
import type { Caller } from "../accounts/caller.ts";
import type { Context } from "../context.ts";
import { accessForm, requireRole } from "../forms/form-access.ts";
import { collections } from "../records/collections.ts";
import { type DeliveryRecord, queueDeliveryOp } from "./webhook-outbox.ts";
import { readWebhook } from "./webhooks.ts";

/** A copy of `delivery` with `change` applied and its modified date moved. */
export function changedDelivery(
  ctx: Context,
  delivery: DeliveryRecord,
  change: (delivery: DeliveryRecord) => void,
): DeliveryRecord {
  // `change` appends attempts and sets fields; the attempts already there stay as they are.
  const next = { ...delivery, attempts: [...delivery.attempts] };
  change(next);
  next.modified_date_utc = ctx.now().toISOString();
  return next;
}

/**
 * Changes a delivery record, re-reading and re-applying `change` when another write got
 * there first (the worker appending an attempt while someone asks for a redelivery), as
 * `updateRecord` does. `known`, the record as last read or written, spares the first read;
 * a stale one costs a failed conditional write and a read.
 * @returns the record as written with its etag, or `null` when it is gone.
 */
export function updateDelivery(
  ctx: Context,
  webhookId: string,
  deliveryId: string,
  change: (delivery: DeliveryRecord) => void,
  known?: Stored<DeliveryRecord> | null,
): Promise<Stored<DeliveryRecord> | null> {
  return updateRecord<DeliveryRecord>(
    ctx.store,
    collections.webhookDeliveries,
    webhookId,
    deliveryId,
    // A delivery that is gone stays gone: nothing is written for it.
    (delivery) => (delivery ? changedDelivery(ctx, delivery, change) : null),
    { known },
  );
}

/** Extension: one page of a webhook's deliveries, newest first, with their attempts. */
export async function listDeliveries(
  ctx: Context,
  caller: Caller,
  formId: string,
  webhookId: string,
  page: { batchSize: number; continuationToken?: string },
) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  await readWebhook(ctx, formId, webhookId);
  return deliveryPage(ctx, webhookId, page);
}

/** One page of the delivery records of one partition, newest first, payloads as JSON. */
export async function deliveryPage(
  ctx: Context,
  partition: string,
  page: { batchSize: number; continuationToken?: string },
) {
  const result = await ctx.store.query<DeliveryRecord>(collections.webhookDeliveries, partition, {
    orderBy: { field: "created_date_utc", direction: "desc" },
    limit: page.batchSize,
    continuation: page.continuationToken ?? null,
  });
  return {
    results: result.items.map(({ record: { payload, ...delivery } }) => ({
      ...delivery,
      payload: JSON.parse(payload) as unknown,
    })),
    continuation_token: result.continuation,
  };
}

/**
 * Extension: sends a finished delivery again, same `webhook-id` and body, with a fresh
 * round of attempts; its history keeps the earlier ones.
 * @throws {ConflictError} while the delivery is still pending.
 */
export async function redeliver(
  ctx: Context,
  caller: Caller,
  formId: string,
  webhookId: string,
  deliveryId: string,
) {
  const access = await accessForm(ctx, caller, formId);
  requireRole(access, "has_account_management");
  await readWebhook(ctx, formId, webhookId);
  return queueAgain(ctx, webhookId, deliveryId);
}

/**
 * Puts a finished delivery of the log `logId` (a webhook's, or an action's) back in the
 * outbox: its record marked pending and its outbox entry written in one batch, so that a
 * failure leaves neither (a pending delivery with no entry could never be sent again).
 * @throws {NotFoundError} when the log holds no such delivery
 * @throws {ConflictError} while it is still pending, or its last attempt is still settling
 */
export async function queueAgain(ctx: Context, logId: string, deliveryId: string) {
  const delivery = await retryOnConflict(() => markPending(ctx, logId, deliveryId));
  ctx.nudgeWebhooks();
  return {
    id: delivery.id,
    message: "Delivery queued again",
    action_successful: true,
    error: "",
  };
}

/** One attempt of `queueAgain`: the record marked pending and its outbox entry, in a batch. */
async function markPending(ctx: Context, logId: string, deliveryId: string) {
  const stored = await ctx.store.get<DeliveryRecord>(
    collections.webhookDeliveries,
    logId,
    deliveryId,
  );
  if (!stored) throw new NotFoundError("Delivery not found");
  if (stored.record.status === "pending") {
    throw new ConflictError("This delivery is still being attempted");
  }
  const delivery: DeliveryRecord = {
    ...stored.record,
    status: "pending",
    modified_date_utc: ctx.now().toISOString(),
  };
  try {
    await ctx.store.batch([
      {
        op: "replace",
        collection: collections.webhookDeliveries,
        partition: logId,
        record: delivery,
        ifMatch: stored.etag,
      },
      queueDeliveryOp(ctx, delivery),
    ]);
  } catch (error) {
    // Its outbox entry is still there: the attempt that finished it is being settled.
    if (error instanceof StoreConflictError && error.reason === "exists") {
      throw new ConflictError("This delivery is still being attempted");
    }
    throw error;
  }
  return delivery;
}
