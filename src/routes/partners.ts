import { signCustomerToken } from "../auth/customer-jwt.ts";
import { authenticatePartner } from "../auth/partner-credentials.ts";
import {
  addCustomer,
  findCustomer,
  listCustomers,
  updateCustomer,
} from "../domain/accounts/index.ts";
import type { Context } from "../domain/context.ts";
import { readJson } from "../http/body.ts";
import { NotFoundError, ValidationError } from "../kernel/errors.ts";
import { parseWith } from "../kernel/parse.ts";
import { emailSchema } from "../schemas/common.ts";
import { parseCustomerBody } from "../schemas/partners.ts";
import { envelope, type RouteRequest, type ServiceRouter } from "./route-request.ts";

/**
 * Partner endpoints: P1 login token, P3 list, P4 add and P5 update customers. Each needs the
 * partner's `PartnerId` and `PartnerSecret`, checked before anything else is read. P2 is no
 * route of its own: the router's first stage lets any route act for a customer.
 */
export function partnerRoutes(router: ServiceRouter): void {
  const base = "/api/restricted/partner";
  router
    .post(`${base}/userauth`, async (request, ctx) => {
      const partner = await partnerOf(request, ctx);
      const email = parseWith(
        emailSchema,
        request.headers.get("PartnerCustomerEmail") ?? undefined,
        "The PartnerCustomerEmail header must hold the customer's e-mail address",
      );
      const { record } = await findCustomer(ctx, partner.id, email);
      return envelope("", await signCustomerToken(ctx, record));
    })
    .get(`${base}/users`, async (request, ctx) => {
      const partner = await partnerOf(request, ctx);
      return listCustomers(ctx, partner.id);
    })
    .post(`${base}/user`, async (request, ctx) => {
      const partner = await partnerOf(request, ctx);
      const body = await readJson(request, ctx.limits.jsonBodyBytes);
      const { email, fields } = parseCustomerBody(body, true);
      const customer = await addCustomer(ctx, partner.id, email ?? "", fields);
      return envelope(customer.id, "User added successfully");
    })
    .post(`${base}/user/:customerEmailAddress`, async (request, ctx) => {
      const partner = await partnerOf(request, ctx);
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
    });
}

/** The calling partner: as the rate-limit stage found it, else checked here. */
async function partnerOf(request: RouteRequest, ctx: Context) {
  return request.partner ?? authenticatePartner(ctx, request.headers);
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
