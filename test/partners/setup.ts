import assert from "node:assert/strict";
import type { FormServiceOptions } from "../../src/index.ts";
import { type Send, setup } from "../helpers.ts";

/** The key tests sign customer login tokens with. */
export const tokenSecret = "a test key of thirty-two bytes or more";

/** A service with a clock the test moves and one registered partner, "Acme". */
export async function withPartner(options: Partial<FormServiceOptions> = {}) {
  const clock = { now: new Date("2026-11-15T10:00:00.000Z") };
  const env = await setup({
    now: () => clock.now,
    sweepIntervalMs: 0,
    ...options,
    partners: { tokenSecret, ...options.partners },
  });
  const partner = await env.service.admin.createPartner({ name: "Acme" });
  return { ...env, clock, ...partnerCalls(env.call, partner) };
}

export type PartnerEnv = Awaited<ReturnType<typeof withPartner>>;

type Call = Awaited<ReturnType<typeof setup>>["call"];

/** Calls as one partner, and as its customers. */
export function partnerCalls(call: Call, partner: { partner_id: string; partner_secret: string }) {
  const partnerHeaders = { PartnerId: partner.partner_id, PartnerSecret: partner.partner_secret };
  const asPartner = (method: string, path: string, send: Send = {}) =>
    call(method, path, { ...send, headers: { ...partnerHeaders, ...send.headers } });
  /** P4; returns the new customer's user id. */
  const addCustomer = async (body: Record<string, unknown>) => {
    const added = await asPartner("POST", "/api/restricted/partner/user", { body });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    return added.body.id as string;
  };
  /** P1; returns the customer's login token. */
  const login = async (email: string) => {
    const headers = { PartnerCustomerEmail: email };
    const answer = await asPartner("POST", "/api/restricted/partner/userauth", { headers });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.message as string;
  };
  /** P2: calls `path` on behalf of the customer whose login token is `jwt`. */
  const asCustomer = (jwt: string, method: string, path: string, send: Send = {}) =>
    call(method, withPartnerAccountId(path, partner.partner_id), {
      ...send,
      headers: { Authorization: `Bearer ${jwt}`, ...send.headers },
    });
  return { partner, partnerHeaders, asPartner, addCustomer, login, asCustomer };
}

/** Appends `partnerAccountId` to a path's query. */
export function withPartnerAccountId(path: string, partnerAccountId: string): string {
  return `${path}${path.includes("?") ? "&" : "?"}partnerAccountId=${partnerAccountId}`;
}

/** A P4 body with every quota, as numbers. */
export function customerBody(email: string, quotas: Partial<Record<string, number>> = {}) {
  return {
    email,
    first_name: "Carla",
    last_name: "Customer",
    subscription_status: "paying_customer",
    monthly_form_submissions_quota: quotas.monthly ?? 100,
    total_forms_quota: quotas.forms ?? 10,
    total_datalists_quota: quotas.datalists ?? 10,
    total_file_storage_quota: quotas.storage ?? 1_000_000,
    total_datalist_entries_per_datalist_quota: quotas.entries ?? 100,
    total_admin_collaborators_quota: quotas.admins ?? 10,
  };
}

/** Decodes the payload of a JWT, unchecked. */
export function payloadOf(jwt: string) {
  const [, payload = ""] = jwt.split(".");
  return JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
}
