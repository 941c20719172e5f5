import * as v from "valibot";
import { signCustomerToken } from "../auth/customer-jwt.ts";
import {
  addCustomer,
  findCustomer,
  listCustomers,
  type PartnerRecord,
  updateCustomer,
} from "../domain/accounts/index.ts";
import { readJson } from "../http/body.ts";
import { NotFoundError, UnauthorizedError, ValidationError } from "../kernel/errors.ts";
import { parseWith } from "../kernel/parse.ts";
import { actionResult } from "../openapi/responses.ts";
import * as answers from "../schemas/answers.ts";
import { emailSchema } from "../schemas/common.ts";
import { customerChangesBody, newCustomerBody, parseCustomerBody } from "../schemas/partners.ts";
import type { RouteOperation } from "./operation.ts";
import { envelope, type RouteRequest } from "./route-request.ts";

const base = "/api/restricted/partner";

/**
 * The partner layer: P1 login token, P3 list, P4 add and P5 update customers. Each needs the
 * partner's `PartnerId` and `PartnerSecret`, checked before anything else is read. P2 is no
 * route of its own: the router's first stage lets any route act for a customer (the
 * `CustomerToken` scheme of every account route).
 */
export const partnerOperations: RouteOperation[] = [
  {
    method: "post",
    path: `${base}/userauth`,
    operationId: "issueCustomerToken",
    ref: "P1",
    summary: "Issue a customer's login token",
    description:
      "The token acts for the customer on any account route (P2), sent as `Authorization: Bearer <token>` with `partnerAccountId`.",
    tag: "Partner",
    auth: "partner",
    headers: v.object({ PartnerCustomerEmail: emailSchema }),
    // 404: the partner has no customer with that e-mail.
    failures: [400, 401, 404, 429, 503],
    response: { description: "`message` holds the customer's JWT.", schema: actionResult },
    handler: async (request, ctx) => {
      const partner = partnerOf(request);
      const email = parseWith(
        emailSchema,
        request.headers.get("PartnerCustomerEmail") ?? undefined,
        "The PartnerCustomerEmail header must hold the customer's e-mail address",
      );
      const { record } = await findCustomer(ctx, partner.id, email);
      return envelope("", await signCustomerToken(ctx, record));
    },
  },
  {
    method: "get",
    path: `${base}/users`,
    operationId: "listCustomers",
    ref: "P3",
    summary: "List the partner's customers",
    tag: "Partner",
    auth: "partner",
    response: {
      description: "A JSON array of customer records.",
      schema: { name: "CustomerList", schema: answers.customerList },
    },
    handler: async (request, ctx) => {
      const partner = partnerOf(request);
      return listCustomers(ctx, partner.id);
    },
  },
  {
    method: "post",
    path: `${base}/user`,
    operationId: "addCustomer",
    ref: "P4",
    summary: "Register a customer",
    tag: "Partner",
    auth: "partner",
    body: { json: { name: "CustomerInput", schema: newCustomerBody }, required: true },
    response: {
      description: "`id` is the user id; `message` is `User added successfully`.",
      schema: actionResult,
    },
    handler: async (request, ctx) => {
      const partner = partnerOf(request);
      const body = await readJson(request, ctx.limits.jsonBodyBytes);
      const { email, fields } = parseCustomerBody(body, true);
      const customer = await addCustomer(ctx, partner.id, email ?? "", fields);
      return envelope(customer.id, "User added successfully");
    },
  },
  {
    method: "post",
    path: `${base}/user/:customerEmailAddress`,
    operationId: "updateCustomer",
    ref: "P5",
    summary: "Change a customer's status, quotas or names",
    tag: "Partner",
    auth: "partner",
    pathDescriptions: { customerEmailAddress: "The customer's e-mail address." },
    pathSchemas: { customerEmailAddress: emailSchema },
    body: { json: { name: "CustomerChanges", schema: customerChangesBody }, required: true },
    response: {
      description: "`id` is the user id; `message` is `User updated`.",
      schema: actionResult,
    },
    handler: async (request, ctx) => {
      const partner = partnerOf(request);
      const email = customerEmailOf(request);
      const body = await readJson(request, ctx.limits.jsonBodyBytes);
      const { email: inBody, fields } = parseCustomerBody(body, false);
      if (inBody !== undefined && inBody !== email) {
        throw new ValidationError("The e-mail of a customer cannot be changed", [
          { path: "email", message: "differs from the e-mail in the path" },
        ]);
      }
      const customer = await updateCustomer(ctx, partner.id, email, fields);
      return envelope(customer.id, "User updated");
    },
  },
];

/**
 * The calling partner, as the rate-limit stage authenticated it on every partner path that
 * carries partner credentials (`rate-limit-stage.ts`).
 * @throws {UnauthorizedError} when the request carries none.
 */
function partnerOf(request: RouteRequest): PartnerRecord {
  if (!request.partner)
    throw new UnauthorizedError("Both PartnerId and PartnerSecret are required");
  return request.partner;
}

function customerEmailOf(request: RouteRequest): string {
  let raw: string;
  try {
    raw = decodeURIComponent(request.params.customerEmailAddress ?? "");
  } catch {
    throw new NotFoundError("Customer not found");
  }
  return parseWith(emailSchema, raw, "customerEmailAddress must be an e-mail address");
}
