/**
 * What the kill -9 tests share (crash-counts, crash-storage): calls to the standalone
 * server as a child process, and a partner customer's form.
 */
import assert from "node:assert/strict";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { conformingHttpFetch } from "../openapi/conformance.ts";

/** The server's answers, each checked against the OpenAPI document on the way. */
const fetch = conformingHttpFetch("");

/** The `ADMIN_SECRET` the servers of these tests run with. */
export const adminSecret = "test-admin-secret";
/** The headers of admin calls. */
export const adminHeaders = { AdminSecret: adminSecret };

/** A form and the headers of its owner. */
export interface Owned {
  auth: Record<string, string>;
  formId: string;
  /** The query every restricted call of the owner takes (`partnerAccountId`). */
  query: string;
}

/** A JSON call; the answer's status and parsed body. Throws when the process is gone. */
export async function call(
  server: StandaloneServer,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: unknown,
) {
  const response = await fetch(`${server.base}${path}`, {
    method,
    headers: { ...headers, "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : null };
}

/**
 * A partner, its paying customer Carla with `storage` bytes of file storage, and Carla's
 * form made of `formBody`.
 */
export async function partnerForm(server: StandaloneServer, formBody: unknown, storage: number) {
  const partner = await call(server, "POST", "/api/admin/partners", adminHeaders, {
    name: "Acme",
  });
  assert.equal(partner.status, 200, JSON.stringify(partner.body));
  const partnerAuth = {
    PartnerId: partner.body.partner_id,
    PartnerSecret: partner.body.partner_secret,
  };
  const email = "carla@example.com";
  const customer = await call(server, "POST", "/api/restricted/partner/user", partnerAuth, {
    email,
    first_name: "Carla",
    last_name: "Customer",
    subscription_status: "paying_customer",
    monthly_form_submissions_quota: 1_000_000,
    total_forms_quota: 10,
    total_datalists_quota: 10,
    total_file_storage_quota: storage,
    total_datalist_entries_per_datalist_quota: 100,
    total_admin_collaborators_quota: 10,
  });
  assert.equal(customer.status, 200, JSON.stringify(customer.body));
  const login = await call(server, "POST", "/api/restricted/partner/userauth", {
    ...partnerAuth,
    PartnerCustomerEmail: email,
  });
  assert.equal(login.status, 200, JSON.stringify(login.body));
  const bearer = { Authorization: `Bearer ${login.body.message}` };
  const query = `?partnerAccountId=${partner.body.partner_id}`;
  const form = await call(server, "POST", `/api/restricted/form${query}`, bearer, formBody);
  assert.equal(form.status, 200, JSON.stringify(form.body));
  const owned: Owned = { auth: bearer, formId: form.body.id, query };
  return { owned, customerId: customer.body.id as string };
}

/** Runs `work` until it answers `false` (the process died), in `count` parallel loops. */
export function loops(count: number, work: (loop: number) => Promise<boolean>) {
  return Array.from({ length: count }, async (_, loop) => {
    while (await work(loop)) {}
  });
}
