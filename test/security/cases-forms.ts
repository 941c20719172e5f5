import { formInput } from "../helpers.ts";
import { anyRole, editor, form, manager, resultIds, settings, webhook } from "./case-paths.ts";
import type { RouteCase } from "./matrix-routes.ts";

/** Forms, form users and webhooks, with who may use them (docs/design.md §3). */
export const formCases: RouteCase[] = [
  // Forms: F1–F5 and the create and whole-update extensions.
  {
    route: "POST /api/restricted/form",
    name: "form create",
    access: { kind: "own" },
    request: () => ({ path: "/api/restricted/form", body: formInput("Mine") }),
  },
  {
    route: "POST /api/restricted/form/:formId/clone",
    name: "F1 clone",
    access: editor,
    request: (fx) => ({ path: `${form(fx)}/clone` }),
  },
  {
    route: "POST /api/restricted/form/:formId",
    name: "F2 settings",
    access: editor,
    request: (fx) => ({ path: settings(fx, "paymentsettings"), body: { currency: "EUR" } }),
  },
  {
    route: "POST /api/restricted/form/:formId",
    name: "F2 disable",
    access: editor,
    request: (fx) => ({
      path: settings(fx, "generalsettings"),
      body: { form_name: "Closed", is_disabled: true },
    }),
  },
  {
    route: "POST /api/restricted/form/:formId",
    name: "whole update",
    access: editor,
    request: (fx) => ({ path: `${form(fx)}/`, body: formInput("Renamed") }),
  },
  {
    route: "POST /api/restricted/form/:formId",
    name: "F3 delete",
    access: manager,
    request: (fx) => ({ path: settings(fx, "generalsettingsdelete") }),
  },
  {
    route: "GET /api/restricted/user/form",
    name: "F4 list",
    access: { kind: "own" },
    request: () => ({ path: "/api/restricted/user/form" }),
    reveals: { target: anyRole, found: (answer, fx) => resultIds(answer).includes(fx.ids.formId) },
  },
  {
    route: "GET /api/form/:formId",
    name: "F5 form",
    access: { kind: "public", form: "enabled" },
    request: (fx) => ({ path: `/api/form/${fx.ids.formId}` }),
  },
  {
    route: "GET /api/form/:formId/challenge",
    name: "bot-protection challenge",
    access: { kind: "public", form: "enabled" },
    request: (fx) => ({ path: `/api/form/${fx.ids.formId}/challenge` }),
  },
  {
    route: "GET /f/:formId",
    name: "hosted page",
    access: { kind: "public", form: "enabled" },
    request: (fx) => ({ path: `/f/${fx.ids.formId}` }),
  },
  // Form users: U1–U4.
  {
    route: "GET /api/restricted/form/:formId/usersecurity",
    name: "U1 list",
    access: manager,
    request: (fx) => ({ path: `${form(fx)}/usersecurity` }),
  },
  {
    route: "POST /api/restricted/form/:formId/usersecurity",
    name: "U2 add",
    access: manager,
    request: (fx) => ({
      path: `${form(fx)}/usersecurity?collaborator_email=new@example.com&has_reporting_full=1`,
    }),
  },
  {
    route: "POST /api/restricted/form/:formId/usersecurity/:userSecurityId",
    name: "U3 update",
    access: manager,
    request: (fx) => ({
      path: `${form(fx)}/usersecurity/${fx.ids.userSecurityId}?has_account_management=1`,
    }),
  },
  {
    route: "DELETE /api/restricted/form/:formId/usersecurity/:userSecurityDocumentId",
    name: "U4 remove",
    access: manager,
    request: (fx) => ({ path: `${form(fx)}/usersecurity/${fx.ids.userSecurityId}` }),
  },
  // Submission webhooks: W1–W3 and the deliveries extension.
  {
    route: "GET /api/restricted/form/:formId/submissionwebhook",
    name: "W1 list",
    access: manager,
    request: (fx) => ({ path: `${form(fx)}/submissionwebhook` }),
  },
  {
    route: "POST /api/restricted/form/:formId/submissionwebhook",
    name: "W2 add",
    access: manager,
    request: (fx) => ({
      path: `${form(fx)}/submissionwebhook`,
      body: { webhook_name: "Another", webhook_destination_url: "http://127.0.0.1:9/other" },
    }),
  },
  {
    route: "DELETE /api/restricted/form/:formId/submissionwebhook/:webhookId",
    name: "W3 remove",
    access: manager,
    request: (fx) => ({ path: webhook(fx) }),
  },
  {
    route: "GET /api/restricted/form/:formId/submissionwebhook/:webhookId/deliveries",
    name: "deliveries",
    access: manager,
    request: (fx) => ({ path: `${webhook(fx)}/deliveries` }),
  },
  {
    route: "GET /api/restricted/form/:formId/actions/:action/deliveries",
    name: "e-mail deliveries",
    access: manager,
    request: (fx) => ({ path: `${form(fx)}/actions/email/deliveries` }),
  },
  {
    route: "POST /api/restricted/form/:formId/actions/:action/deliveries/:deliveryId/redeliver",
    name: "redeliver a destination post",
    access: manager,
    request: (fx) => ({
      path: `${form(fx)}/actions/destination/deliveries/${fx.ids.actionDeliveryId}/redeliver`,
    }),
  },
  {
    route:
      "POST /api/restricted/form/:formId/submissionwebhook/:webhookId/deliveries/:deliveryId/redeliver",
    name: "redeliver",
    access: manager,
    request: (fx) => ({ path: `${webhook(fx)}/deliveries/${fx.ids.deliveryId}/redeliver` }),
  },
];
