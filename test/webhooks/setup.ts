import assert from "node:assert/strict";
import { after } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { createFormService, createHttpWebhookSender, type FormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/store.ts";
import { formInput, request, type TestUser } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";

/** Options of a webhook test service. */
export interface WebhookServiceOptions {
  store?: Store;
  allowPrivate?: boolean;
  pollMs?: number;
  timeoutMs?: number;
  maxAttempts?: number;
  /** The service's `webhookLeaseMs`. */
  leaseMs?: number;
}

/** A store several services share, as instances over one Cosmos database would. */
export function sharedStore(store: Store): Store {
  return {
    get: store.get.bind(store),
    create: store.create.bind(store),
    replace: store.replace.bind(store),
    delete: store.delete.bind(store),
    query: store.query.bind(store),
    scan: store.scan.bind(store),
    deletePartition: store.deletePartition.bind(store),
    batch: store.batch.bind(store),
    close: async () => {},
  };
}

/** A service whose sender retries fast, so that tests of retries take milliseconds. */
export function webhookService(options: WebhookServiceOptions = {}): FormService {
  const allowPrivate = options.allowPrivate ?? true;
  return createFormService({
    store: options.store ?? serviceQueriesOnly(createMemoryStore()),
    allowPrivateWebhookDestinations: allowPrivate,
    webhookSender: createHttpWebhookSender({
      allowPrivateDestinations: allowPrivate,
      retryBaseMs: 20,
      retryMaxDelayMs: 100,
      timeoutMs: options.timeoutMs ?? 2000,
      maxAttempts: options.maxAttempts ?? 5,
    }),
    webhookPollMs: options.pollMs ?? 50,
    webhookLeaseMs: options.leaseMs,
    onError: (error) => assert.fail(error instanceof Error ? error : String(error)),
  });
}

/** A service, its owner, a form with one text field, and call helpers. */
export async function withWebhookForm(options: WebhookServiceOptions = {}) {
  const service = webhookService(options);
  after(() => service.close());
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const call = (method: string, path: string, send: Parameters<typeof request>[3] = {}) =>
    request(service, method, path, send);
  const field = { unique_system_name: "name_1", type: "text", label: "Name" };
  const form = await call("POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Hooks", [field]),
  });
  const formId: string = form.body.id;
  const hooks = `/api/restricted/form/${formId}/submissionwebhook`;
  const addHook = (body: Record<string, unknown>) => call("POST", hooks, { as: alice, body });
  const submit = (name: string, draft = false) =>
    call("POST", `/api/form/${formId}/submission`, {
      body: {
        form_fields: [{ unique_system_name: "name_1", submitted_value: name }],
        is_draft_submission: draft,
      },
    });
  const deliveries = async (webhookId: string) =>
    (await call("GET", `${hooks}/${webhookId}/deliveries`, { as: alice })).body.results;
  return { service, alice, call, formId, hooks, addHook, submit, deliveries };
}

/** On `service`: an owner, a form with one text field and a webhook to `url`, and a submit. */
export async function formWithHook(service: FormService, url: string) {
  const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
  const field = { unique_system_name: "name_1", type: "text", label: "Name" };
  const form = await request(service, "POST", "/api/restricted/form", {
    as: alice,
    body: formInput("Hooks", [field]),
  });
  const hook = await request(
    service,
    "POST",
    `/api/restricted/form/${form.body.id}/submissionwebhook`,
    {
      as: alice,
      body: { webhook_name: "r", webhook_url: url },
    },
  );
  assert.equal(hook.status, 200);
  const submit = (name: string) =>
    request(service, "POST", `/api/form/${form.body.id}/submission`, {
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: name }] },
    });
  return { alice, formId: form.body.id as string, webhookId: hook.body.id as string, submit };
}
