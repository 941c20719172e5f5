import { createMemoryStore } from "../adapters/memory/index.ts";
import { createFormService, type FormService, type FormServiceOptions } from "../src/index.ts";
import { conformingFetch, mountedAt } from "./openapi/conformance.ts";
import { serviceQueriesOnly } from "./service-queries-only.ts";

export { conformingFetch, mountedAt };

/** Credentials of a test account. */
export interface TestUser {
  user_id: string;
  email: string;
  token_id: string;
  token_secret: string;
}

/** What a test sends: a body (JSON unless a string or FormData), extra headers, a caller. */
export interface Send {
  as?: TestUser;
  body?: unknown;
  headers?: Record<string, string>;
}

/** A service over the memory store with a helper that sends one request and reads JSON. */
export async function setup(options: Partial<FormServiceOptions> = {}) {
  // Every query must be one of `serviceQueries` (src/ports/service-queries.ts).
  const store = serviceQueriesOnly(createMemoryStore({ freezeWrites: true }));
  const service = createFormService({ store, ...options });
  if (options.basePath) mountedAt(service, options.basePath);
  const call = (method: string, path: string, send: Send = {}) =>
    request(service, method, path, send);
  const user = (email: string) => service.admin.createAccount({ email }) as Promise<TestUser>;
  return { service, call, user };
}

/**
 * Sends one request through `service.fetch`, checks the answer against the OpenAPI document
 * (see `openapi/conformance.ts`) and reads it as JSON.
 */
export async function request(service: FormService, method: string, path: string, send: Send = {}) {
  const headers = new Headers(send.headers);
  if (send.as) {
    headers.set("TokenId", send.as.token_id);
    headers.set("TokenSecret", send.as.token_secret);
  }
  let body: string | undefined;
  if (typeof send.body === "string") body = send.body;
  else if (send.body !== undefined) {
    body = JSON.stringify(send.body);
    if (!headers.has("content-type")) headers.set("content-type", "application/json");
  }
  const response = await conformingFetch(service)(
    new Request(`http://localhost${path}`, { method, headers, body }),
  );
  const text = await response.text();
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
  const json: any = text ? JSON.parse(text) : undefined;
  return { status: response.status, body: json, headers: response.headers };
}

/** A minimal valid form body. */
export function formInput(name = "Contact us", fields: unknown[] = []) {
  return {
    form_configuration: { settings: { form_name: name, form_type: "classicsingle" } },
    form_definition: { pages: [{ title: "Page 1", fields }] },
  };
}

/** S3 of `bytes` bytes of "a" to the file field `field` of a form, anonymously. */
export async function uploadBytes(
  service: FormService,
  formId: string,
  field: string,
  bytes: number,
) {
  const body = new FormData();
  body.append(field, new Blob([new Uint8Array(bytes).fill(97)]), "cv.txt");
  const response = await conformingFetch(service)(
    new Request(`http://localhost/api/form/${formId}/submissionattachment`, {
      method: "POST",
      body,
    }),
  );
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON answers.
  return { status: response.status, body: (await response.json()) as any };
}
