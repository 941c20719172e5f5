import * as v from "valibot";
import type { Context } from "../domain/context.ts";
import { receivePaymentEvent } from "../domain/flows/index.ts";
import { readBytes } from "../http/body.ts";
import { NotFoundError } from "../kernel/errors.ts";
import type { RouteOperation } from "./operation.ts";
import type { RouteRequest } from "./route-request.ts";

/** A provider's name as the `Payments` port gives it: lowercase letters. */
const providerName = v.pipe(v.string(), v.regex(/^[a-z]+$/), v.maxLength(40));

/** What the service answers a provider whose event it took (or ignored). */
const eventReceived = v.strictObject({ received: v.literal(true) });

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
];
