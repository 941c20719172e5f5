/**
 * The form service on its production adapters for tests: the Cosmos DB store on the
 * cosmosdb-server stand-in and the Azure Blob store on Azurite, both started for the test
 * file, with helpers to send requests through `service.fetch`.
 */
import assert from "node:assert/strict";
import { after } from "node:test";
import { createAzureBlobStore } from "../../adapters/azure-blob/index.ts";
import { createCosmosStore } from "../../adapters/cosmos/index.ts";
import { createFormService, type FormService, type FormServiceOptions } from "../../src/index.ts";
import type { Store } from "../../src/ports/store.ts";
import { startAzurite } from "../emulators/azurite.ts";
import { startCosmosEmulator } from "../emulators/cosmos.ts";
import { conformingFetch, request, type Send, type TestUser } from "../helpers.ts";

export const adminSecret = "an admin secret for the Azure tests";

/**
 * Starts both emulators and a service over them, with no background timers; `wrap` may
 * wrap the Cosmos DB store, e.g. to count its calls.
 */
export async function startAzureService(
  options: Partial<FormServiceOptions> = {},
  wrap: (store: Store) => Store = (store) => store,
) {
  const [cosmos, azurite] = await Promise.all([startCosmosEmulator(), startAzurite()]);
  const store = wrap(
    createCosmosStore({
      client: cosmos.client(),
      databaseId: "formwork",
      createIfMissing: true,
      recoveryIntervalMs: 0,
    }),
  );
  const blobs = createAzureBlobStore({ connectionString: azurite.connectionString });
  const service = createFormService({
    store,
    blobs,
    adminSecret,
    sweepIntervalMs: 0,
    webhookPollMs: 0,
    ...options,
  });
  after(() => service.close());
  const call = (method: string, path: string, send: Send = {}) =>
    request(service, method, path, send);
  /** Creates an account through the admin API, over HTTP. */
  const account = async (email: string): Promise<TestUser> => {
    const created = await call("POST", "/api/admin/accounts", {
      headers: { AdminSecret: adminSecret },
      body: { email },
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    return created.body;
  };
  return { service, store, blobs, cosmos, azurite, call, account };
}

/** The running service and its helpers. */
export type AzureService = Awaited<ReturnType<typeof startAzureService>>;

/** Uploads one file through S3 as a real multipart request. */
export async function uploadFile(
  service: FormService,
  formId: string,
  part: { field: string; bytes: string; filename: string; type?: string },
) {
  const form = new FormData();
  const blob = new Blob([part.bytes], { type: part.type ?? "text/plain" });
  form.append(part.field, blob, part.filename);
  const response = await conformingFetch(service)(
    new Request(`http://localhost/api/form/${formId}/submissionattachment`, {
      method: "POST",
      body: form,
    }),
  );
  return { status: response.status, body: await response.json() };
}

/** The S2 body for the given field values. */
export function submission(values: Record<string, string>) {
  return {
    form_fields: Object.entries(values).map(([unique_system_name, submitted_value]) => ({
      unique_system_name,
      submitted_value,
    })),
  };
}
