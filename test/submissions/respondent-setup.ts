/**
 * What the respondent erasure and export tests share: a service over a given store with a
 * memory blob store, a worker that retries fast, a clock the test moves, and helpers.
 */
import assert from "node:assert/strict";
import { after } from "node:test";
import { createMemoryBlobStore } from "../../adapters/memory/index.ts";
import {
  createFormService,
  createHttpWebhookSender,
  type FormServiceOptions,
} from "../../src/index.ts";
import type { Store } from "../../src/ports/store.ts";
import { settingsPath } from "../form-fixture.ts";
import { conformingFetch, formInput, request, type Send, type TestUser } from "../helpers.ts";
import { serviceQueriesOnly } from "../service-queries-only.ts";

/** The key tests sign customer login tokens with. */
export const tokenSecret = "a test key of thirty-two bytes or more";

/** A service over `store` (wrapped to refuse queries outside `serviceQueries`). */
export async function respondentWorld(store: Store, options: Partial<FormServiceOptions> = {}) {
  const clock = { now: new Date() };
  const now = () => clock.now;
  const blobs = createMemoryBlobStore({ now });
  const service = createFormService({
    store: serviceQueriesOnly(store),
    blobs,
    now,
    sweepIntervalMs: 0,
    allowPrivateWebhookDestinations: true,
    webhookSender: createHttpWebhookSender({
      allowPrivateDestinations: true,
      retryBaseMs: 20,
      retryMaxDelayMs: 100,
      maxAttempts: 3,
    }),
    webhookPollMs: 50,
    partners: { tokenSecret },
    ...options,
  });
  after(() => service.close().catch(() => {}));
  const call = (method: string, path: string, send: Send = {}) =>
    request(service, method, path, send);
  const user = (email: string) => service.admin.createAccount({ email }) as Promise<TestUser>;
  /** A form of `owner` with `fields`; returns its id. */
  const newForm = async (owner: TestUser, name: string, fields: unknown[]) => {
    const created = await call("POST", "/api/restricted/form", {
      as: owner,
      body: formInput(name, fields),
    });
    assert.equal(created.status, 200, JSON.stringify(created.body));
    return created.body.id as string;
  };
  /** Sets a settings section of a form. */
  const setSection = async (owner: TestUser, formId: string, section: string, body: unknown) => {
    const answer = await call("POST", settingsPath(formId, section), { as: owner, body });
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
  };
  /** S2 of `values` (field name → value); returns the new submission's id. */
  const submit = async (formId: string, values: Record<string, string>, draft = false) => {
    const form_fields = Object.entries(values).map(([unique_system_name, submitted_value]) => ({
      unique_system_name,
      submitted_value,
    }));
    const posted = await call("POST", `/api/form/${formId}/submission`, {
      body: { form_fields, is_draft_submission: draft },
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    return posted.body.id as string;
  };
  /** S3 of a small text file to `field`; returns the attachment id. */
  const upload = async (formId: string, field: string) => {
    const body = new FormData();
    body.append(field, new Blob(["a file of the respondent's"], { type: "text/plain" }), "cv.txt");
    const response = await conformingFetch(service)(
      new Request(`http://localhost/api/form/${formId}/submissionattachment`, {
        method: "POST",
        body,
      }),
    );
    const answer = (await response.json()) as { id: string };
    assert.equal(response.status, 200, JSON.stringify(answer));
    return answer.id;
  };
  /** The erasure, as `as` (or with `headers`). */
  const erase = (email: unknown, send: Send = {}) =>
    call("POST", "/api/restricted/respondents/erase", { ...send, body: { email } });
  /** The access export: its status, content type and lines, parsed. */
  const exportOf = async (email: string, send: Send = {}, path = "") => {
    const headers = new Headers(send.headers);
    if (send.as) {
      headers.set("TokenId", send.as.token_id);
      headers.set("TokenSecret", send.as.token_secret);
    }
    const query = `email=${encodeURIComponent(email)}${path}`;
    const response = await conformingFetch(service)(
      new Request(`http://localhost/api/restricted/respondents/export?${query}`, { headers }),
    );
    const text = await response.text();
    const lines = text
      .split("\n")
      .filter(Boolean)
      // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON lines.
      .map((line) => JSON.parse(line) as any);
    return { status: response.status, type: response.headers.get("content-type"), text, lines };
  };
  return {
    service,
    store,
    blobs,
    clock,
    call,
    user,
    newForm,
    setSection,
    submit,
    upload,
    erase,
    exportOf,
  };
}

export type RespondentWorld = Awaited<ReturnType<typeof respondentWorld>>;

/** Every record of the store, as text, for a search of what must be gone. */
export async function storeText(store: Store): Promise<string> {
  let text = "";
  let continuation: string | null = null;
  do {
    const page = await store.scan({ continuation });
    for (const item of page.items)
      text += `${item.collection}/${item.partition} ${JSON.stringify(item.record)}\n`;
    continuation = page.continuation;
  } while (continuation);
  return text;
}

/** The records of one collection, across every partition (a scan: tests only). */
export async function recordsOf(store: Store, collection: string) {
  const records: { partition: string; record: Record<string, unknown> }[] = [];
  let continuation: string | null = null;
  do {
    const page = await store.scan({ continuation });
    for (const item of page.items) {
      if (item.collection === collection) {
        records.push({
          partition: item.partition,
          record: item.record as unknown as Record<string, unknown>,
        });
      }
    }
    continuation = page.continuation;
  } while (continuation);
  return records;
}
