import * as v from "valibot";
import { createAccountBody, createPartnerBody } from "../schemas/admin.ts";
import * as answers from "../schemas/answers.ts";
import { emailSchema, userIdPathSchema } from "../schemas/common.ts";
import { customerChangesBody, newCustomerBody } from "../schemas/partners.ts";
import type { Operation } from "./operation.ts";
import { accountList, actionResult, issuedPartner, issuedToken, tokenList } from "./responses.ts";

const partnerBase = "/api/restricted/partner";

/** The partner layer: P1, P3–P5 (P2 is the `CustomerToken` scheme of every account route). */
export const partnerOperations: Operation[] = [
  {
    method: "post",
    path: `${partnerBase}/userauth`,
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
  },
  {
    method: "get",
    path: `${partnerBase}/users`,
    operationId: "listCustomers",
    ref: "P3",
    summary: "List the partner's customers",
    tag: "Partner",
    auth: "partner",
    response: {
      description: "A JSON array of customer records.",
      schema: { name: "CustomerList", schema: answers.customerList },
    },
  },
  {
    method: "post",
    path: `${partnerBase}/user`,
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
  },
  {
    method: "post",
    path: `${partnerBase}/user/:customerEmailAddress`,
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
  },
];

/** The signed query string of a download link (the shape of an Azure SAS). */
const signedQuery = v.object({
  sv: v.string(),
  se: v.pipe(v.string(), v.description("The link's expiry, `YYYY-MM-DDTHH:MM:SSZ`.")),
  sr: v.picklist(["b", "c"]),
  sp: v.literal("r"),
  sig: v.string(),
});

/** The admin API, the hosted form page, this document and downloads (extensions). */
export const serviceOperations: Operation[] = [
  {
    method: "post",
    path: "/api/admin/accounts",
    operationId: "createAccount",
    ref: "extension",
    summary: "Create an account with its first token",
    description: "Only when the service has an admin secret; 404 otherwise.",
    tag: "Admin",
    auth: "admin",
    body: { json: { name: "AccountInput", schema: createAccountBody }, required: true },
    response: { description: "The account's id, e-mail and token.", schema: issuedToken },
  },
  {
    method: "get",
    path: "/api/admin/accounts",
    operationId: "listAccounts",
    ref: "extension",
    summary: "List the local accounts",
    description:
      "Oldest first; partner customers are listed by P3. Only when the service has an admin secret; 404 otherwise.",
    tag: "Admin",
    auth: "admin",
    response: {
      description: "Each account's user id, e-mail and creation date.",
      schema: accountList,
    },
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
  },
  {
    method: "get",
    path: "/f/:formId",
    operationId: "formPage",
    ref: "extension",
    summary: "The hosted form page",
    description: "An HTML page that renders the form, uploads through S3 and submits through S2.",
    tag: "Pages",
    auth: "public",
    response: { description: "The form as an HTML page.", schema: "html" },
  },
  {
    method: "get",
    path: "/openapi.json",
    operationId: "openApiDocument",
    ref: "extension",
    summary: "This document",
    tag: "Pages",
    auth: "none",
    response: {
      description: "The OpenAPI 3.1 document of the service.",
      schema: { name: "OpenApiDocument", schema: answers.openApiAnswer },
    },
  },
  ...(["get", "head"] as const).map(
    (method): Operation => ({
      method,
      path: "/storage/:container/:blobName",
      operationId: method === "get" ? "downloadFile" : "downloadFileHead",
      ref: "extension",
      summary: "Download a file through a signed link",
      description:
        "The links of S1, S4 and S5 when the blob store is served by the service itself (the fs store): this path is its `storageUrl` (`PUBLIC_URL/storage` for the standalone server). With Azure Blob, the links point to Azure instead. Files are answered as attachments, with `X-Content-Type-Options: nosniff`.",
      tag: "Pages",
      auth: "none",
      pathDescriptions: {
        container: "The form id.",
        blobName: "The attachment id.",
      },
      query: signedQuery,
      response: { description: "The file.", schema: "download" },
      // 403: the link is not genuine, or has expired; 404: no such file.
      failures: [403, 404, 500, 503],
      beforeRouter: true,
    }),
  ),
];
