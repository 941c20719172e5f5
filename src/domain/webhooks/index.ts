/**
 * What happens after a submission: webhooks (W1–W3) and their deliveries through the outbox,
 * the form's own actions (confirmation e-mail, destination post), and the background worker
 * that claims and attempts them. The network is reached only through the `Destinations`
 * and `WebhookSender` ports of the context.
 */

export { webhookEvents } from "../records/webhook-record.ts";
export { listActionDeliveries, loggedActions, redeliverAction } from "./action-deliveries.ts";
export { backlogCapPerPartition, type OutboxBacklog, outboxBacklog } from "./outbox-backlog.ts";
export { listDeliveries, redeliver } from "./webhook-deliveries.ts";
export { startWebhookWorker } from "./webhook-worker.ts";
export { addWebhook, listWebhooks, removeWebhook } from "./webhooks.ts";
