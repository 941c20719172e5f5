import { createHmac } from "node:crypto";
import Stripe from "stripe";
import { stripeEvent } from "../payments/stripe-events.ts";
import { datalist, form, manager, reporter, resultIds } from "./case-paths.ts";
import { matrixStripe, respondentEmail, submissionInput } from "./matrix-fixture.ts";
import { tokenSecret } from "./matrix-principals.ts";
import type { RouteCase } from "./matrix-routes.ts";

/** Datalists, submissions and attachments, with who may use them (docs/design.md §3). */
export const recordCases: RouteCase[] = [
  // Datalists: D1–D7.
  {
    route: "POST /api/restricted/datalist",
    name: "D1 create",
    access: { kind: "own" },
    request: () => ({
      path: "/api/restricted/datalist",
      body: { settings: { list_name: "Mine" } },
    }),
  },
  {
    route: "POST /api/restricted/datalist/:datalistId",
    name: "D2 update",
    access: { kind: "datalist" },
    request: (fx) => ({ path: datalist(fx), body: { settings: { list_name: "Renamed" } } }),
  },
  {
    route: "POST /api/restricted/datalist/:datalistId",
    name: "D3 delete",
    access: { kind: "datalist" },
    request: (fx) => ({ path: `${datalist(fx)}?for_deletion=1`, body: {} }),
  },
  {
    route: "GET /api/restricted/user/datalist",
    name: "D4 list",
    access: { kind: "own" },
    request: () => ({ path: "/api/restricted/user/datalist" }),
    reveals: {
      target: { kind: "datalist" },
      found: (answer, fx) => resultIds(answer).includes(fx.ids.datalistId),
    },
  },
  {
    route: "POST /api/restricted/datalist/:datalistId/entry",
    name: "D5 insert",
    access: { kind: "datalist" },
    request: (fx) => ({ path: `${datalist(fx)}/entry`, body: { entry_value: "blue" } }),
  },
  {
    route: "DELETE /api/restricted/datalist/:datalistId/entry/:datalistEntryId",
    name: "D6 delete entry",
    access: { kind: "datalist" },
    request: (fx) => ({ path: `${datalist(fx)}/entry/${fx.ids.entryId}` }),
  },
  {
    route: "GET /api/restricted/datalist/:datalistId/entries",
    name: "D7 entries",
    access: { kind: "datalist" },
    request: (fx) => ({ path: `${datalist(fx)}/entries` }),
  },
  // A payment provider's events: its signature is the only credential (docs/design.md §26).
  {
    route: "POST /api/payments/:provider/events",
    name: "payment event",
    access: { kind: "open" },
    request: () => ({ path: "/api/payments/stripe/events", ...paymentEvent(false) }),
  },
  {
    route: "POST /api/payments/:provider/events",
    name: "payment event, bad signature",
    access: { kind: "foreign", status: 400, public: true },
    request: () => ({ path: "/api/payments/stripe/events", ...paymentEvent(true) }),
  },
  {
    route: "POST /api/payments/:provider/events",
    name: "payment event, another provider",
    access: { kind: "foreign", status: 404, public: true },
    request: () => ({ path: "/api/payments/mollie/events", ...paymentEvent(false) }),
  },
  // A respondent back from a checkout: the return token is the credential (docs/design.md
  // §26). The matrix's submission pays nothing, so even its own token reads nothing.
  ...["GET", "POST"].flatMap((method): RouteCase[] => {
    const suffix = method === "GET" ? "" : "/checkout";
    const route = `${method} /api/form/:formId/submission/:submissionId/payment${suffix}`;
    const path = (fx: Parameters<RouteCase["request"]>[0], token: string) =>
      `/api/form/${fx.ids.formId}/submission/${fx.ids.submissionId}/payment${suffix}?token=${token}`;
    return [
      {
        route,
        name: "payment return, a forged token",
        access: { kind: "foreign", status: 404, public: true },
        request: (fx) => ({ path: path(fx, "A".repeat(43)) }),
      },
      {
        route,
        name: "payment return, a submission that pays nothing",
        access: { kind: "foreign", status: 404, public: true },
        request: (fx) => ({ path: path(fx, returnToken(fx.ids.formId, fx.ids.submissionId)) }),
      },
    ];
  }),
  // Submissions and attachments: S1–S7.
  {
    route: "POST /api/form/:formId/submission",
    name: "S2 submit",
    access: { kind: "public", form: "enabled" },
    request: (fx) => ({ path: `/api/form/${fx.ids.formId}/submission`, body: submissionInput() }),
  },
  {
    route: "POST /api/form/:formId/submissionattachment",
    name: "S3 upload",
    access: { kind: "public", form: "enabled" },
    request: (fx) => {
      const body = new FormData();
      body.append("fil_2", new Blob(["another file"], { type: "text/plain" }), "more.txt");
      return { path: `/api/form/${fx.ids.formId}/submissionattachment`, body };
    },
  },
  {
    route: "GET /api/restricted/form/:formId/submission/:submissionId",
    name: "S1 read",
    access: reporter,
    audited: true,
    request: (fx) => ({ path: `${form(fx)}/submission/${fx.ids.submissionId}` }),
  },
  {
    route: "GET /api/restricted/form/:formId/submission/:submissionId/history",
    name: "submission history",
    access: reporter,
    request: (fx) => ({ path: `${form(fx)}/submission/${fx.ids.submissionId}/history` }),
  },
  {
    route: "GET /api/restricted/form/:formId/submissionattachment/:attachmentId",
    name: "S4 file link",
    access: reporter,
    audited: true,
    request: (fx) => ({ path: `${form(fx)}/submissionattachment/${fx.ids.attachmentId}` }),
  },
  {
    route: "GET /api/restricted/form/:formId/submissions",
    name: "S5 list",
    access: reporter,
    audited: true,
    request: (fx) => ({ path: `${form(fx)}/submissions?includeFormDefinition=1` }),
  },
  {
    route: "GET /api/restricted/form/:formId/submissions/export",
    name: "submission export",
    access: reporter,
    audited: true,
    request: (fx) => ({ path: `${form(fx)}/submissions/export?format=ndjson` }),
  },
  {
    route: "POST /api/restricted/form/:formId/submission/:submissionId",
    name: "S6 update",
    access: reporter,
    request: (fx) => ({
      path: `${form(fx)}/submission/${fx.ids.submissionId}`,
      body: { form_fields: [{ unique_system_name: "gpi_1", submitted_value: "Grace" }] },
    }),
  },
  {
    route: "DELETE /api/restricted/form/:formId/submission/:submissionId",
    name: "S7 delete",
    access: reporter,
    request: (fx) => ({ path: `${form(fx)}/submission/${fx.ids.submissionId}` }),
  },
  // The audit trail (extension).
  {
    route: "GET /api/restricted/form/:formId/audit",
    name: "audit trail",
    access: manager,
    request: (fx) => ({ path: `${form(fx)}/audit?batchSize=10` }),
  },
  // Erasure and access by respondent: any signed-in caller, over the forms it owns or
  // manages only; the matrix submission is found exactly for those.
  {
    route: "POST /api/restricted/respondents/erase",
    name: "erasure by respondent",
    access: { kind: "own" },
    request: () => ({
      path: "/api/restricted/respondents/erase",
      body: { email: respondentEmail.toUpperCase() },
    }),
    reveals: {
      target: manager,
      exact: true,
      found: (answer, fx) =>
        (answer.body.forms as { form_id: string }[]).some(
          ({ form_id }) => form_id === fx.ids.formId,
        ),
    },
  },
  {
    route: "GET /api/restricted/respondents/export",
    name: "access export by respondent",
    access: { kind: "own" },
    audited: true,
    request: () => ({ path: `/api/restricted/respondents/export?email=${respondentEmail}` }),
    reveals: {
      target: manager,
      exact: true,
      found: (answer, fx) => answer.body?.form_submission?.id === fx.ids.submissionId,
    },
  },
];

/** A Stripe event naming no submission of ours, signed with the matrix's secret (or forged). */
function paymentEvent(forged: boolean) {
  const state = {
    checkout: "cs_test_matrix",
    reference: "none",
    status: "paid" as const,
    amount: 100,
    currency: "EUR",
  };
  const body = JSON.stringify(stripeEvent("paid", state));
  const secret = forged ? "whsec_forged" : matrixStripe.webhookSecret;
  const signature = Stripe.webhooks.generateTestHeaderString({ payload: body, secret });
  return { body, headers: { "content-type": "application/json", "stripe-signature": signature } };
}

/** The return token the service signs for a submission (docs/design.md §26). */
function returnToken(formId: string, submissionId: string): string {
  const key = createHmac("sha256", tokenSecret).update("formwork payment return").digest();
  return createHmac("sha256", key).update(`${formId}.${submissionId}`).digest("base64url");
}
