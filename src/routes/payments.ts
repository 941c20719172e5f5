import * as v from "valibot";
import type { Context } from "../domain/context.ts";
import { readPaymentStatus, receivePaymentEvent, retryPayment } from "../domain/flows/index.ts";
import { readBytes } from "../http/body.ts";
import { NotFoundError } from "../kernel/errors.ts";
import type { RouteOperation } from "./operation.ts";
import { guidParam, type RouteRequest, urlOf } from "./route-request.ts";

/** A provider's name as the `Payments` port gives it: lowercase letters. */
const providerName = v.pipe(v.string(), v.regex(/^[a-z]+$/), v.maxLength(40));

/** What the service answers a provider whose event it took (or ignored). */
const eventReceived = v.strictObject({ received: v.literal(true) });

/** The token of a checkout's return address: an HMAC, base64url. */
const paymentTokenQuery = v.object({
  token: v.pipe(v.string(), v.maxLength(100)),
});

const tokenDescription = {
  token:
    "The token the checkout's return address carries (`…/f/{formId}?submission=…&payment=…&token=…`); it is the credential.",
};

/** What the page learns of a submission's payment. */
const paymentView = v.strictObject({
  id: v.string(),
  payment_status: v.picklist(["pending", "paid", "expired", "failed"]),
  checkout_url: v.optional(v.string()),
});

/** The submission a return token is for, from the path; the token from the query. */
function returnOf(request: RouteRequest) {
  const formId = guidParam(request, "formId");
  const submissionId = guidParam(request, "submissionId");
  const token = urlOf(request).searchParams.get("token") ?? "";
  return { formId, submissionId, token };
}

/**
 * The form's hosted page beside a payment route's address (`…/api/form/{id}/submission/…`
 * → `…/f/{id}`), where a new checkout sends the respondent back (docs/design.md §26).
 */
function pageUrlOf(request: RouteRequest, formId: string): string {
  const url = urlOf(request);
  url.pathname = url.pathname.replace(/\/api\/form\/[^/]+\/submission\/.*$/i, `/f/${formId}`);
  url.search = "";
  return url.href;
}

/**
 * The payment provider's events (extension, docs/design.md §26). The event's signature is
 * its only credential: no account is read, and the bytes go unparsed to the port.
 */
export const paymentOperations: RouteOperation[] = [
  {
    method: "post",
    path: "/api/payments/:provider/events",
    operationId: "receivePaymentEvent",
    ref: "extension",
    summary: "Receive a payment provider's signed event",
    description:
      "Called by the payment provider (Stripe: the webhook endpoint of its dashboard), never by a client: the provider's signature over the exact body is the credential. 404 unless the provider is the service's configured one; 400, changing nothing, when the signature does not verify. A repeated or out-of-order event changes nothing twice.",
    tag: "Submissions",
    auth: "none",
    pathSchemas: { provider: providerName },
    pathDescriptions: { provider: "The provider's name, e.g. `stripe`." },
    body: {
      json: { name: "PaymentEvent", schema: v.looseObject({}) },
      required: true,
    },
    response: {
      description: "`received` is true: the event was taken, or concerned nothing of ours.",
      schema: { name: "PaymentEventReceived", schema: eventReceived },
    },
    handler: async (request: RouteRequest, ctx: Context) => {
      const provider = request.params.provider ?? "";
      // Before the body is read: a service without payments spends nothing on it.
      if (ctx.payments?.provider !== provider) throw new NotFoundError("No such payment provider");
      const body = await readBytes(request, ctx.limits.jsonBodyBytes);
      return receivePaymentEvent(ctx, provider, body, request.headers);
    },
  },
  {
    method: "get",
    path: "/api/form/:formId/submission/:submissionId/payment",
    operationId: "getPaymentStatus",
    ref: "extension",
    summary: "A submission's payment status, for its respondent",
    description:
      "Read by the hosted page when the checkout sends the respondent back (docs/design.md §26). No account: the return address's token, which the service signs for the submission, is the credential. A wrong token, an unknown submission and one that pays nothing are all 404.",
    tag: "Submissions",
    auth: "none",
    query: paymentTokenQuery,
    queryDescriptions: tokenDescription,
    response: {
      description: "The submission's `payment_status`.",
      schema: { name: "PaymentView", schema: paymentView },
    },
    handler: (request: RouteRequest, ctx: Context) => {
      const { formId, submissionId, token } = returnOf(request);
      return readPaymentStatus(ctx, formId, submissionId, token);
    },
  },
  {
    method: "post",
    path: "/api/form/:formId/submission/:submissionId/payment/checkout",
    operationId: "retryPayment",
    ref: "extension",
    summary: "A new checkout for a submission still pending, for its respondent",
    description:
      "The hosted page's \"try again\" after a checkout left unpaid (docs/design.md §26): for a `pending` submission, opens a new checkout, ends the last one and answers the new one's address in `checkout_url`. A submission no longer pending answers its status and no address (`paid`: paid meanwhile; `expired`, `failed`: it can no longer be paid). The token is the credential, as for the status.",
    tag: "Submissions",
    auth: "none",
    query: paymentTokenQuery,
    queryDescriptions: tokenDescription,
    response: {
      description:
        "The submission's `payment_status`, and `checkout_url` when a checkout was opened.",
      schema: { name: "PaymentView", schema: paymentView },
    },
    handler: (request: RouteRequest, ctx: Context) => {
      const { formId, submissionId, token } = returnOf(request);
      const page = pageUrlOf(request, formId);
      return retryPayment(ctx, formId, submissionId, token, page);
    },
  },
];
