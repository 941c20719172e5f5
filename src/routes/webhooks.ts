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
import { actionParam, deliveriesQuery, webhookBody } from "../schemas/webhooks.ts";
import { callerOf, envelope, guidParam, type ServiceRouter, urlOf } from "./route-request.ts";

/**
 * Submission webhooks: W1–W3, and the deliveries extension (list and redeliver) of webhooks
 * and of the form's actions.
 */
export function webhookRoutes(router: ServiceRouter): void {
  const base = "/api/restricted/form/:formId/submissionwebhook";
  router
    .get(base, (request, ctx) => listWebhooks(ctx, callerOf(request), guidParam(request, "formId")))
    .post(base, async (request, ctx) => {
      const caller = callerOf(request);
      const formId = guidParam(request, "formId");
      const body = parseWith(webhookBody, await readJson(request, ctx.limits.jsonBodyBytes));
      const webhook = await addWebhook(ctx, caller, formId, body);
      return envelope(webhook.id, "Form submission webhook added successfully");
    })
    .delete(`${base}/:webhookId`, async (request, ctx) => {
      await removeWebhook(
        ctx,
        callerOf(request),
        guidParam(request, "formId"),
        guidParam(request, "webhookId"),
      );
      return envelope("", "Form submission webhook removed successfully");
    })
    .get(`${base}/:webhookId/deliveries`, (request, ctx) => {
      const params = Object.fromEntries(urlOf(request).searchParams);
      const page = parseWith(deliveriesQuery, params, "The query parameters are not valid");
      return listDeliveries(
        ctx,
        callerOf(request),
        guidParam(request, "formId"),
        guidParam(request, "webhookId"),
        page,
      );
    })
    .get("/api/restricted/form/:formId/actions/:action/deliveries", (request, ctx) => {
      const params = Object.fromEntries(urlOf(request).searchParams);
      const page = parseWith(deliveriesQuery, params, "The query parameters are not valid");
      const action = parseWith(actionParam, request.params.action, "The action is not valid");
      const formId = guidParam(request, "formId");
      return listActionDeliveries(ctx, callerOf(request), formId, action, page);
    })
    .post(
      "/api/restricted/form/:formId/actions/:action/deliveries/:deliveryId/redeliver",
      (request, ctx) => {
        const action = parseWith(actionParam, request.params.action, "The action is not valid");
        const formId = guidParam(request, "formId");
        const deliveryId = guidParam(request, "deliveryId");
        return redeliverAction(ctx, callerOf(request), formId, action, deliveryId);
      },
    )
    .post(`${base}/:webhookId/deliveries/:deliveryId/redeliver`, (request, ctx) =>
      redeliver(
        ctx,
        callerOf(request),
        guidParam(request, "formId"),
        guidParam(request, "webhookId"),
        guidParam(request, "deliveryId"),
      ),
    );
}
