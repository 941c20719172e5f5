/**
 * Seeds the data folders of the benches: a lowdb store with one account, one form and many
 * submissions, written straight into the store.
 */
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { v7 } from "uuid";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { createFormService, type FormService } from "../src/index.ts";
import type { Store } from "../src/ports/index.ts";

/** The admin secret of the seeded data's servers. */
export const adminSecret = "bench-admin-secret";
/** The bench form: a text field and a file field of up to 200 MiB. */
export const formBody = {
  form_configuration: { settings: { form_name: "Bench", form_type: "classicsingle" } },
  form_definition: {
    pages: [
      {
        fields: [
          { unique_system_name: "name_1", type: "text", label: "Name" },
          { unique_system_name: "cv_2", type: "file", label: "CV", max_file_size: 209715200 },
        ],
      },
    ],
  },
};

/** A seeded data folder: the lowdb store's directory, the form, and its owner's tokens. */
export interface SeededForm {
  directory: string;
  formId: string;
  tokens: { TokenId: string; TokenSecret: string };
  /** When the first submission was created (UNIX ms); submission `n` is `n` ms later. */
  firstMs: number;
}

/**
 * A form holding `count` submissions, one a millisecond, in a new data folder, written
 * through the store in batches of concurrent creates (not through HTTP), with the form's
 * counter to match.
 */
/**
 * POSTs `body` as JSON to `path` of `target`: a service in process, or the base URL of a
 * running server. @returns the parsed answer. @throws when the answer is not a 2xx.
 */
export async function postJson(
  target: FormService | string,
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Record<string, unknown>> {
  const request = new Request(`${typeof target === "string" ? target : "http://bench"}${path}`, {
    method: "POST",
    headers: { ...headers, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const response = await (typeof target === "string" ? fetch(request) : target.fetch(request));
  const answer = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${path}: ${response.status} ${JSON.stringify(answer)}`);
  return answer;
}

export async function seedForm(count: number): Promise<SeededForm> {
  const directory = await mkdtemp(join(tmpdir(), "formwork-bench-"));
  const store = createLowdbStore({ directory });
  const service = createFormService({ store, adminSecret, sweepIntervalMs: 0 });
  try {
    const call = (path: string, headers: Record<string, string>, body: unknown) =>
      postJson(service, path, body, headers);
    const account = await call(
      "/api/admin/accounts",
      { AdminSecret: adminSecret },
      { email: "bench@example.com" },
    );
    const tokens = { TokenId: String(account.token_id), TokenSecret: String(account.token_secret) };
    const formId = String((await call("/api/restricted/form", tokens, formBody)).id);
    const firstMs = await addSubmissions(store, formId, count);
    return { directory, formId, tokens, firstMs };
  } finally {
    await service.close();
  }
}

/**
 * The `n`th submission the benches seed, made at `ms` (UNIX milliseconds): the record S2
 * writes for a post of `name_1` (its fields in S2's order, with no inventory taken and no
 * file held), as `test/submissions/record-layout.test.ts` checks.
 */
export function benchSubmission(formId: string, n: number, ms: number) {
  return {
    id: v7({ msecs: ms }),
    form_id: formId,
    stale_form_name: "Bench",
    created_by_verified_email_address: "",
    created_by_device: { client_ip_address: "", client_ip_country_code: "" },
    form_fields: [{ unique_system_name: "name_1", submitted_value: `Person ${n}` }],
    search_words: ["person", String(n)],
    is_draft_submission: false,
    created_date_utc: new Date(ms).toISOString(),
    modified_date_utc: "0001-01-01T00:00:00",
    inventory_taken: [],
    attachments_held: [],
  };
}

/** Writes `count` submissions of the form (concurrent creates, batches of 500). */
async function addSubmissions(store: Store, formId: string, count: number): Promise<number> {
  const start = Date.now() - count;
  for (let done = 0; done < count; done += 500) {
    const batch = Array.from({ length: Math.min(500, count - done) }, (_, i) => done + i);
    await Promise.all(
      batch.map((n) => store.create("submissions", formId, benchSubmission(formId, n, start + n))),
    );
  }
  const counter = { id: formId, counts: { submissions: count } };
  const stored = await store.get("form_counters", formId, formId);
  if (stored) await store.replace("form_counters", formId, counter);
  else await store.create("form_counters", formId, counter);
  return start;
}

/** How many submissions the form's counter says it holds. */
export async function heldBy(directory: string, formId: string): Promise<number> {
  const store = createLowdbStore({ directory });
  try {
    const stored = await store.get<{ id: string; counts: { submissions: number } }>(
      "form_counters",
      formId,
      formId,
    );
    return stored?.record.counts.submissions ?? 0;
  } finally {
    await store.close();
  }
}

/**
 * Signs up the bench account and creates the bench form through a running server (whose
 * admin secret is {@link adminSecret}), or a service in process. @returns the form id
 */
export async function createBenchForm(target: FormService | string): Promise<string> {
  const post = (path: string, headers: Record<string, string>, body: unknown) =>
    postJson(target, path, body, headers);
  const account = await post(
    "/api/admin/accounts",
    { AdminSecret: adminSecret },
    { email: "bench@example.com" },
  );
  const tokens = { TokenId: String(account.token_id), TokenSecret: String(account.token_secret) };
  return String((await post("/api/restricted/form", tokens, formBody)).id);
}
