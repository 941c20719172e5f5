import type { Auth } from "./operation.ts";

/** The security schemes, as `components.securitySchemes`. */
export const securitySchemes = {
  TokenId: { type: "apiKey", in: "header", name: "TokenId", description: "Account token id." },
  TokenSecret: {
    type: "apiKey",
    in: "header",
    name: "TokenSecret",
    description: "Account token secret, sent with `TokenId`.",
  },
  CustomerToken: {
    type: "http",
    scheme: "bearer",
    bearerFormat: "JWT",
    description: "P2: a customer login token from P1, sent with `partnerAccountId`.",
  },
  PartnerAccountId: {
    type: "apiKey",
    in: "query",
    name: "partnerAccountId",
    description: "P2: the id of the partner that issued the customer login token.",
  },
  PartnerId: { type: "apiKey", in: "header", name: "PartnerId", description: "Partner id." },
  PartnerSecret: {
    type: "apiKey",
    in: "header",
    name: "PartnerSecret",
    description: "Partner secret, sent with `PartnerId`.",
  },
  AdminSecret: {
    type: "apiKey",
    in: "header",
    name: "AdminSecret",
    description: "The service's admin secret (extension).",
  },
} as const;

const account = { TokenId: [], TokenSecret: [] };
const customer = { CustomerToken: [], PartnerAccountId: [] };

/** The security requirements of each kind of caller; `{}` means no credentials needed. */
export const securityOf: Record<Auth, Record<string, never[]>[]> = {
  account: [account, customer],
  public: [{}, account, customer],
  partner: [{ PartnerId: [], PartnerSecret: [] }],
  admin: [{ AdminSecret: [] }],
  none: [],
};
