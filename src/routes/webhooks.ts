import {
  addWebhook,
  listActionDeliveries,
  listDeliveries,
  listWebhooks,
  redeliver,
  redeliverAction,
  removeWebhook,
} from "../domain/webhooks/index.ts";
import { readJson } from "../http/body.ts";
import { parseWith } from "../kernel/parse.ts";
import { actionResult } from "../openapi/responses.ts";
import * as answers from "../schemas/answers.ts";
import { actionParam, deliveriesQuery, webhookBody } from "../schemas/webhooks.ts";
import type { RouteOperation } from "./operation.ts";
import {
  auditSourceOf,
  callerOf,
  envelope,
  guidParam,
  type RouteRequest,
  urlOf,
} from "./route-request.ts";

const base = "/api/restricted/form/:formId/submissionwebhook";
const actionBase = "/api/restricted/form/:formId/actions/:action";
const deliveries = { name: "DeliveryPage", schema: answers.deliveryPage };
const actionDescription = { action: "`email` or `destination`." };

/**
 * Submission webhooks: W1–W3, and the deliveries extension (list and redeliver) of webhooks
 * and of the form's actions.
 */
export const webhookOperations: RouteOperation[] = [
  {
    method: "get",
    path: base,
    operationId: "listWebhooks",
    ref: "W1",
    summary: "List a form's submission webhooks, with their signing secrets",
    tag: "Webhooks",
    auth: "account",
    response: {
      description: "A JSON array of webhook records.",
      schema: { name: "WebhookList", schema: answers.webhookList },
    },
    handler: (request, ctx) => listWebhooks(ctx, callerOf(request), guidParam(request, "formId")),
  },
  {
    method: "post",
    path: base,
    operationId: "addWebhook",
    ref: "W2",
    summary: "Add a submission webhook",
    tag: "Webhooks",
    auth: "account",
    body: { json: { name: "WebhookInput", schema: webhookBody }, required: true },
    response: { description: "`id` is the new webhook's id.", schema: actionResult },
    handler: async (request, ctx) => {
      const caller = callerOf(request);
      const formId = guidParam(request, "formId");
      const body = parseWith(webhookBody, await readJson(request, ctx.limits.jsonBodyBytes));
      const webhook = await addWebhook(ctx, caller, formId, body, auditSourceOf(request));
      return envelope(webhook.id, "Form submission webhook added successfully");
    },
  },
  {
    method: "delete",
    path: `${base}/:webhookId`,
    operationId: "removeWebhook",
    ref: "W3",
    summary: "Remove a submission webhook",
    description: "The interface names this path's last parameter `submissionwebhookId`.",
    tag: "Webhooks",
    auth: "account",
    response: {
      description: "`message` is `Form submission webhook removed successfully`.",
      schema: actionResult,
    },
    handler: async (request, ctx) => {
      await removeWebhook(
        ctx,
        callerOf(request),
        guidParam(request, "formId"),
        guidParam(request, "webhookId"),
        auditSourceOf(request),
      );
      return envelope("", "Form submission webhook removed successfully");
    },
  },
  {
    method: "get",
    path: `${base}/:webhookId/deliveries`,
    operationId: "listWebhookDeliveries",
    ref: "extension",
    summary: "List a webhook's deliveries, newest first, with every attempt",
    tag: "Webhooks",
    auth: "account",
    query: deliveriesQuery,
    response: { description: "`results` and `continuation_token`.", schema: deliveries },
    handler: (request, ctx) => {
      const page = pageOf(request);
      return listDeliveries(
        ctx,
        callerOf(request),
        guidParam(request, "formId"),
        guidParam(request, "webhookId"),
        page,
      );
    },
  },
  {
    method: "get",
    path: `${actionBase}/deliveries`,
    operationId: "listActionDeliveries",
    ref: "extension",
    summary: "List a form's confirmation e-mails or destination posts, newest first",
    description:
      "Each with its `kind`, `status` and every attempt, the first one made within S2. Role `has_account_management`.",
    pathDescriptions: actionDescription,
    pathSchemas: { action: actionParam },
    tag: "Webhooks",
    auth: "account",
    query: deliveriesQuery,
    response: { description: "`results` and `continuation_token`.", schema: deliveries },
    handler: (request, ctx) => {
      const page = pageOf(request);
      const action = actionOf(request);
      const formId = guidParam(request, "formId");
      return listActionDeliveries(ctx, callerOf(request), formId, action, page);
    },
  },
  {
    method: "post",
    path: `${actionBase}/deliveries/:deliveryId/redeliver`,
    operationId: "redeliverAction",
    ref: "extension",
    summary: "Send a confirmation e-mail or destination post again",
    description:
      "Same body, a fresh round of attempts; the delivery's history keeps the earlier ones. An e-mail keeps its Message-ID. 409 while the delivery is still pending. Role `has_account_management`.",
    pathDescriptions: actionDescription,
    pathSchemas: { action: actionParam },
    tag: "Webhooks",
    auth: "account",
    response: { description: "`message` is `Delivery queued again`.", schema: actionResult },
    handler: (request, ctx) => {
      const action = actionOf(request);
      const formId = guidParam(request, "formId");
      const deliveryId = guidParam(request, "deliveryId");
      return redeliverAction(ctx, callerOf(request), formId, action, deliveryId);
    },
  },
  {
    method: "post",
    path: `${base}/:webhookId/deliveries/:deliveryId/redeliver`,
    operationId: "redeliverWebhook",
    ref: "extension",
    summary: "Send a delivery again",
    tag: "Webhooks",
    auth: "account",
    response: { description: "`message` is `Delivery queued again`.", schema: actionResult },
    handler: (request, ctx) =>
      redeliver(
        ctx,
        callerOf(request),
        guidParam(request, "formId"),
        guidParam(request, "webhookId"),
        guidParam(request, "deliveryId"),
      ),
  },
];

/** The page of deliveries the query asks for. */
function pageOf(request: RouteRequest) {
  const params = Object.fromEntries(urlOf(request).searchParams);
  return parseWith(deliveriesQuery, params, "The query parameters are not valid");
}

function actionOf(request: RouteRequest) {
  return parseWith(actionParam, request.params.action, "The action is not valid");
}
