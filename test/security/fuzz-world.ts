/**
 * What the fuzz aims at: a service with one of everything (an account with a form, a
 * datalist and its entry, a collaborator, a submission with a file, a webhook with a
 * delivery, a partner with a customer), its credentials, the real ids, a valid body per
 * route, and the routes themselves as the OpenAPI document lists them.
 */
import assert from "node:assert/strict";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { conformingFetch, formInput, request, type Send, type TestUser } from "../helpers.ts";
import { customerBody, tokenSecret } from "../partners/setup.ts";

/** One operation of the OpenAPI document. */
export interface Operation {
  method: string;
  /** The path template, e.g. `/api/form/{formId}/submission`. */
  path: string;
  /** Its query parameters. */
  query: string[];
  /** The media type of its body, if it takes one. */
  body?: string;
}

/** The admin secret of every fuzz world. */
export const adminSecret = "fuzz admin secret";

/** A fuzz target and everything real about it. */
export type World = Awaited<ReturnType<typeof buildWorld>>;

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", max_length: 50 },
  { unique_system_name: "age_2", type: "number", label: "Age", min: 0, max: 130 },
  { unique_system_name: "size_3", type: "select", label: "Size", options: ["S", "M"] },
  { unique_system_name: "cv_4", type: "file", label: "CV", max_files: 2, max_file_size: 4096 },
];

/** Builds a fresh world over `store`, with files in `directory`. */
export async function buildWorld(store: Store, directory: string) {
  const service = createFormService({
    store,
    blobs: createFsBlobStore({
      directory,
      storageUrl: "http://localhost/storage",
      signingSecret: "fuzz signing secret",
    }),
    adminSecret,
    partners: { tokenSecret },
    allowPrivateWebhookDestinations: true,
    rateLimits: { publicPerMinute: 0, credentialPerMinute: 0 },
    webhookPollMs: 0,
    sweepIntervalMs: 0,
  });
  const call = async (method: string, path: string, send: Send = {}) => {
    const answer = await request(service, method, path, send);
    assert.ok(answer.status < 300, `${method} ${path}: ${JSON.stringify(answer.body)}`);
    return answer.body;
  };
  const owner = (await service.admin.createAccount({ email: "owner@example.com" })) as TestUser;
  const other = (await service.admin.createAccount({ email: "other@example.com" })) as TestUser;
  const formId: string = (
    await call("POST", "/api/restricted/form", { as: owner, body: formInput("Fuzz", fields) })
  ).id;
  const form = `/api/restricted/form/${formId}`;
  const userSecurityId: string = (
    await call(
      "POST",
      `${form}/usersecurity?collaborator_email=bob@example.com&has_reporting_full=1`,
      {
        as: owner,
      },
    )
  ).id;
  const datalistId: string = (
    await call("POST", "/api/restricted/datalist", {
      as: owner,
      body: { settings: { list_name: "Colours" } },
    })
  ).id;
  await call("POST", `/api/restricted/datalist/${datalistId}/entry`, {
    as: owner,
    body: { entry_value: "red" },
  });
  const entries = await call("GET", `/api/restricted/datalist/${datalistId}/entries`, {
    as: owner,
  });
  const datalistEntryId: string = entries.results[0].id;
  const webhookId: string = (
    await call("POST", `${form}/submissionwebhook`, { as: owner, body: webhookBody() })
  ).id;
  const attachmentId = await uploadOne(service, formId);
  const submissionId: string = (
    await call("POST", `/api/form/${formId}/submission`, { body: submissionBody(attachmentId) })
  ).id;
  const deliveries = await call("GET", `${form}/submissionwebhook/${webhookId}/deliveries`, {
    as: owner,
  });
  const deliveryId: string = deliveries.results[0].id;
  const partner = await service.admin.createPartner({ name: "Fuzz partner" });
  const partnerHeaders = { PartnerId: partner.partner_id, PartnerSecret: partner.partner_secret };
  const customerEmail = "carla@example.com";
  await call("POST", "/api/restricted/partner/user", {
    headers: partnerHeaders,
    body: customerBody(customerEmail),
  });
  const jwt: string = (
    await call("POST", "/api/restricted/partner/userauth", {
      headers: { ...partnerHeaders, PartnerCustomerEmail: customerEmail },
    })
  ).message;
  const ids: Record<string, string> = {
    formId,
    userSecurityId,
    datalistId,
    datalistEntryId,
    submissionId,
    attachmentId,
    webhookId,
    deliveryId,
    userId: owner.user_id,
    tokenId: other.token_id,
    customerEmailAddress: customerEmail,
  };
  const operations = await operationsOf(service);
  return { service, owner, other, partner, partnerHeaders, jwt, ids, operations, customerEmail };
}

/**
 * A valid body for `operation`, to mutate; `{}` where no sample is known. The form update
 * route takes a settings section (F2) or a whole form: `wholeForm` picks.
 */
export function sampleBody(operation: Operation, world: World, wholeForm: boolean): unknown {
  const key = `${operation.method} ${operation.path}`;
  if (key.endsWith("/form/{formId}/")) {
    return wholeForm ? formInput("Renamed", fields) : { form_name: "Renamed", rules: [] };
  }
  const samples: Record<string, unknown> = {
    "POST /api/restricted/partner/user": customerBody("dora@example.com"),
    "POST /api/restricted/partner/user/{customerEmailAddress}": customerBody(world.customerEmail),
    "POST /api/restricted/form": formInput("Another", fields),
    "POST /api/restricted/datalist": { settings: { list_name: "Sizes" } },
    "POST /api/restricted/datalist/{datalistId}": { settings: { list_name: "Sizes" } },
    "POST /api/restricted/datalist/{datalistId}/entry": [{ entry_value: "blue", sort_order: 1 }],
    "POST /api/restricted/form/{formId}/submission/{submissionId}": submissionBody(
      world.ids.attachmentId ?? "",
    ),
    // The world's file is its submission's already: a new submission names none.
    "POST /api/form/{formId}/submission": submissionBody(""),
    "POST /api/restricted/form/{formId}/submissionwebhook": webhookBody(),
    "POST /api/admin/accounts": { email: "eve@example.com" },
    "POST /api/admin/partners": { name: "Another partner" },
  };
  return samples[key] ?? {};
}

function submissionBody(attachmentId: string) {
  const form_fields = [
    { unique_system_name: "name_1", submitted_value: "Ada" },
    { unique_system_name: "age_2", submitted_value: "36" },
    { unique_system_name: "size_3", submitted_value: "M" },
  ];
  if (attachmentId) form_fields.push({ unique_system_name: "cv_4", submitted_value: attachmentId });
  return { form_fields, is_draft_submission: false };
}

function webhookBody() {
  return {
    webhook_name: "Hook",
    webhook_destination_url: "http://127.0.0.1:9/hook",
    http_header_key: "X-Key",
    http_header_value: "value",
  };
}

async function uploadOne(service: FormService, formId: string): Promise<string> {
  const body = new FormData();
  body.append("cv_4", new Blob(["a curriculum vitae"], { type: "text/plain" }), "cv.txt");
  const response = await conformingFetch(service)(
    new Request(`http://localhost/api/form/${formId}/submissionattachment`, {
      method: "POST",
      body,
    }),
  );
  const answer = await response.json();
  assert.equal(response.status, 200, JSON.stringify(answer));
  return answer.id;
}

/** Every operation of the service's own OpenAPI document. */
async function operationsOf(service: FormService): Promise<Operation[]> {
  const document = await (
    await conformingFetch(service)(new Request("http://localhost/openapi.json"))
  ).json();
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries<Record<string, OpenApiOperation>>(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      const query = (operation.parameters ?? []).filter((p) => p.in === "query").map((p) => p.name);
      const body = Object.keys(operation.requestBody?.content ?? {})[0];
      operations.push({ method: method.toUpperCase(), path, query, body });
    }
  }
  return operations;
}

interface OpenApiOperation {
  parameters?: { in: string; name: string }[];
  requestBody?: { content: Record<string, unknown> };
}
