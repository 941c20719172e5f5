import { customerBody } from "../partners/setup.ts";
import type { RouteCase } from "./matrix-routes.ts";

/** The partner, admin and OpenAPI routes, with who may use them. */
export const serviceCases: RouteCase[] = [
  // Partners: P1, P3–P5 (P2 is every caller kind that holds a login token).
  {
    route: "POST /api/restricted/partner/userauth",
    name: "P1 login token",
    access: { kind: "partner", scope: "customer" },
    request: (fx) => ({
      path: "/api/restricted/partner/userauth",
      headers: { PartnerCustomerEmail: fx.ids.customerEmail },
    }),
  },
  {
    route: "GET /api/restricted/partner/users",
    name: "P3 customers",
    access: { kind: "partner", scope: "own" },
    request: () => ({ path: "/api/restricted/partner/users" }),
    reveals: {
      target: { kind: "partner", scope: "customer" },
      found: (answer, fx) =>
        (answer.body ?? []).some((c: { email: string }) => c.email === fx.ids.customerEmail),
    },
  },
  {
    route: "POST /api/restricted/partner/user",
    name: "P4 add customer",
    access: { kind: "partner", scope: "own" },
    request: () => ({
      path: "/api/restricted/partner/user",
      body: customerBody("new-customer@example.com"),
    }),
  },
  {
    route: "POST /api/restricted/partner/user/:customerEmailAddress",
    name: "P5 update customer",
    access: { kind: "partner", scope: "customer" },
    request: (fx) => ({
      path: `/api/restricted/partner/user/${encodeURIComponent(fx.ids.customerEmail)}`,
      body: { first_name: "Changed" },
    }),
  },
  // The admin API (extension).
  {
    route: "GET /api/admin/accounts",
    name: "admin accounts",
    access: { kind: "admin" },
    request: () => ({ path: "/api/admin/accounts" }),
  },
  {
    route: "POST /api/admin/accounts",
    name: "admin add account",
    access: { kind: "admin" },
    request: () => ({ path: "/api/admin/accounts", body: { email: "added@example.com" } }),
  },
  {
    route: "GET /api/admin/accounts/:userId/tokens",
    name: "admin tokens",
    access: { kind: "admin" },
    request: (fx) => ({
      path: `/api/admin/accounts/${encodeURIComponent(fx.ids.accountId)}/tokens`,
    }),
  },
  {
    route: "POST /api/admin/accounts/:userId/tokens",
    name: "admin add token",
    access: { kind: "admin" },
    request: (fx) => ({
      path: `/api/admin/accounts/${encodeURIComponent(fx.ids.accountId)}/tokens`,
    }),
  },
  {
    route: "DELETE /api/admin/tokens/:tokenId",
    name: "admin revoke token",
    access: { kind: "admin" },
    request: (fx) => ({ path: `/api/admin/tokens/${fx.ids.tokenId}` }),
  },
  {
    route: "POST /api/admin/partners",
    name: "admin add partner",
    access: { kind: "admin" },
    request: () => ({ path: "/api/admin/partners", body: { name: "Partner R" } }),
  },
  {
    route: "GET /openapi.json",
    name: "OpenAPI document",
    access: { kind: "open" },
    request: () => ({ path: "/openapi.json" }),
  },
];
