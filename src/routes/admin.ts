import { adminSecretCheck } from "../auth/admin-secret.ts";
import { readJson } from "../http/body.ts";
import type { FailedAuthentications } from "../http/failed-authentications.ts";
import { NotFoundError } from "../kernel/errors.ts";
import {
  accountList,
  actionResult,
  issuedPartner,
  issuedToken,
  tokenList,
} from "../openapi/responses.ts";
import { createAccountBody, createPartnerBody } from "../schemas/admin.ts";
import { userIdPathSchema } from "../schemas/common.ts";
import type { RouteOperation } from "./operation.ts";
import { envelope, guidParam, type RouteRequest } from "./route-request.ts";

/** The paths of the admin API, all behind `adminGuard`. */
export const adminPaths = "/api/admin/*";

/**
 * The admin API's guard, for every method on `adminPaths`: the `AdminSecret` header must hold
 * the secret. Without a configured secret these paths do not exist (404), whatever the method.
 * Wrong secrets are counted against the client (docs/design.md §17).
 */
export function adminGuard(adminSecret: string | undefined, failures: FailedAuthentications) {
  const checkSecret = adminSecretCheck(adminSecret);
  return (request: RouteRequest) =>
    checkSecret(request.headers, failures.of(request.clientAddress));
}

const onlyWithSecret = "Only when the service has an admin secret; 404 otherwise.";

/** The admin API over HTTP (**extension**), behind `adminGuard`. */
export const adminOperations: RouteOperation[] = [
  {
    method: "post",
    path: "/api/admin/accounts",
    operationId: "createAccount",
    ref: "extension",
    summary: "Create an account with its first token",
    description: onlyWithSecret,
    tag: "Admin",
    auth: "admin",
    body: { json: { name: "AccountInput", schema: createAccountBody }, required: true },
    response: { description: "The account's id, e-mail and token.", schema: issuedToken },
    handler: async (request, ctx, { admin }) =>
      admin.createAccount((await readJson(request, ctx.limits.jsonBodyBytes)) as { email: string }),
  },
  {
    method: "get",
    path: "/api/admin/accounts",
    operationId: "listAccounts",
    ref: "extension",
    summary: "List the local accounts",
    description: `Oldest first; partner customers are listed by P3. ${onlyWithSecret}`,
    tag: "Admin",
    auth: "admin",
    response: {
      description: "Each account's user id, e-mail and creation date.",
      schema: accountList,
    },
    handler: (_request, _ctx, { admin }) => admin.listAccounts(),
  },
  {
    method: "get",
    path: "/api/admin/accounts/:userId/tokens",
    operationId: "listTokens",
    ref: "extension",
    summary: "List an account's tokens",
    description: "Oldest first; never a secret. 404 for an unknown account.",
    tag: "Admin",
    auth: "admin",
    pathSchemas: { userId: userIdPathSchema },
    response: { description: "Each token's id and creation date.", schema: tokenList },
    handler: (request, _ctx, { admin }) => admin.listTokens(request.params.userId ?? ""),
  },
  {
    method: "post",
    path: "/api/admin/accounts/:userId/tokens",
    operationId: "createToken",
    ref: "extension",
    summary: "Issue another token for an account",
    tag: "Admin",
    auth: "admin",
    pathSchemas: { userId: userIdPathSchema },
    response: { description: "The new token.", schema: issuedToken },
    handler: (request, _ctx, { admin }) => admin.createToken(request.params.userId ?? ""),
  },
  {
    method: "delete",
    path: "/api/admin/tokens/:tokenId",
    operationId: "revokeToken",
    ref: "extension",
    summary: "Revoke a token",
    description:
      "The token stops authenticating at once; the account's other tokens stay valid. 404 for an unknown or already revoked token.",
    tag: "Admin",
    auth: "admin",
    response: {
      description: "`id` is the token id; `message` is `Token revoked`.",
      schema: actionResult,
    },
    handler: async (request, _ctx, { admin }) => {
      const tokenId = guidParam(request, "tokenId");
      if (!(await admin.revokeToken(tokenId))) throw new NotFoundError("Token not found");
      return envelope(tokenId, "Token revoked");
    },
  },
  {
    method: "post",
    path: "/api/admin/partners",
    operationId: "createPartner",
    ref: "extension",
    summary: "Register a partner platform",
    tag: "Admin",
    auth: "admin",
    body: { json: { name: "PartnerInput", schema: createPartnerBody }, required: true },
    response: { description: "The partner's credentials.", schema: issuedPartner },
    handler: async (request, ctx, { admin }) =>
      admin.createPartner((await readJson(request, ctx.limits.jsonBodyBytes)) as { name: string }),
  },
];
