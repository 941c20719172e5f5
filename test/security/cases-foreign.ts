import { formInput } from "../helpers.ts";
import type { Fixture } from "./matrix-fixture.ts";
import { submissionInput } from "./matrix-fixture.ts";
import type { RouteCase } from "./matrix-routes.ts";
import type { Access } from "./matrix-rules.ts";

/**
 * The owner's records named by id through the stranger's own form or datalist, where the
 * stranger may do anything: they are not there, so the answer is 404 and nothing changes.
 */

const theirs = (fx: Fixture) => `/api/restricted/form/${fx.ids.strangerFormId}`;
const notThere: Access = { kind: "foreign", status: 404 };
const through = "through the stranger's form";

/** Each route that names a record inside a form or datalist, with another's record. */
export const foreignCases: RouteCase[] = [
  {
    route: "GET /api/restricted/form/:formId/submission/:submissionId",
    name: `S1 read the owner's submission ${through}`,
    access: notThere,
    request: (fx) => ({ path: `${theirs(fx)}/submission/${fx.ids.submissionId}` }),
  },
  {
    route: "POST /api/restricted/form/:formId/submission/:submissionId",
    name: `S6 update the owner's submission ${through}`,
    access: notThere,
    request: (fx) => ({
      path: `${theirs(fx)}/submission/${fx.ids.submissionId}`,
      body: { form_fields: [{ unique_system_name: "gpi_1", submitted_value: "Eve" }] },
    }),
  },
  {
    route: "DELETE /api/restricted/form/:formId/submission/:submissionId",
    name: `S7 delete the owner's submission ${through}`,
    access: notThere,
    request: (fx) => ({ path: `${theirs(fx)}/submission/${fx.ids.submissionId}` }),
  },
  {
    route: "GET /api/restricted/form/:formId/submissionattachment/:attachmentId",
    name: `S4 link to the owner's file ${through}`,
    access: notThere,
    request: (fx) => ({ path: `${theirs(fx)}/submissionattachment/${fx.ids.attachmentId}` }),
  },
  {
    route: "POST /api/form/:formId/submission",
    name: "S2 claim the owner's file in a submission to the stranger's form",
    access: { kind: "foreign", status: 400, public: true },
    request: (fx) => ({
      path: `/api/form/${fx.ids.strangerFormId}/submission`,
      body: submissionInput(fx.ids.attachmentId),
    }),
  },
  {
    route: "POST /api/restricted/form/:formId/usersecurity/:userSecurityId",
    name: `U3 update the owner's collaborator ${through}`,
    access: notThere,
    request: (fx) => ({
      path: `${theirs(fx)}/usersecurity/${fx.ids.userSecurityId}?has_account_management=1`,
    }),
  },
  {
    route: "DELETE /api/restricted/form/:formId/usersecurity/:userSecurityDocumentId",
    name: `U4 remove the owner's collaborator ${through}`,
    access: notThere,
    request: (fx) => ({ path: `${theirs(fx)}/usersecurity/${fx.ids.userSecurityId}` }),
  },
  {
    route: "DELETE /api/restricted/form/:formId/submissionwebhook/:webhookId",
    name: `W3 remove the owner's webhook ${through}`,
    access: notThere,
    request: (fx) => ({ path: `${theirs(fx)}/submissionwebhook/${fx.ids.webhookId}` }),
  },
  {
    route: "GET /api/restricted/form/:formId/submissionwebhook/:webhookId/deliveries",
    name: `deliveries of the owner's webhook ${through}`,
    access: notThere,
    request: (fx) => ({
      path: `${theirs(fx)}/submissionwebhook/${fx.ids.webhookId}/deliveries`,
    }),
  },
  {
    route: "POST /api/restricted/form/:formId/actions/:action/deliveries/:deliveryId/redeliver",
    name: `redeliver the owner's destination post ${through}`,
    access: notThere,
    request: (fx) => ({
      path: `${theirs(fx)}/actions/destination/deliveries/${fx.ids.actionDeliveryId}/redeliver`,
    }),
  },
  {
    route:
      "POST /api/restricted/form/:formId/submissionwebhook/:webhookId/deliveries/:deliveryId/redeliver",
    name: `redeliver the owner's delivery ${through}`,
    access: notThere,
    request: (fx) => ({
      path: `${theirs(fx)}/submissionwebhook/${fx.ids.webhookId}/deliveries/${fx.ids.deliveryId}/redeliver`,
    }),
  },
  {
    route: "POST /api/restricted/form",
    name: "form create naming the owner's datalist in a field",
    access: { kind: "foreign", status: 400, ownerMay: true },
    request: (fx) => ({
      path: "/api/restricted/form",
      body: formInput("Borrowed", [
        {
          unique_system_name: "col_1",
          type: "select",
          label: "Colour",
          datalist_id: fx.ids.datalistId,
        },
      ]),
    }),
  },
  {
    route: "DELETE /api/restricted/datalist/:datalistId/entry/:datalistEntryId",
    name: "D6 delete the owner's entry through the stranger's datalist",
    access: notThere,
    request: (fx) => ({
      path: `/api/restricted/datalist/${fx.ids.strangerDatalistId}/entry/${fx.ids.entryId}`,
    }),
  },
];
