import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { FormServiceOptions } from "../../src/index.ts";
import type { Store } from "../../src/ports/store.ts";
import { engineFields, sectionPath, withEngineForm } from "./fixture.ts";

/** The engine's fields, with a third session for the inventory tests. */
export const sessionFields = engineFields.map((field) =>
  field.unique_system_name === "session_8" ? { ...field, options: ["am", "pm", "eve"] } : field,
);

/** What every post to the form needs besides its session. */
export const entry = { name_1: "Ada", diet_3: "any", email_9: "ada@example.com" };

/** The stores the inventory tests run on. */
export const inventoryStores: [string, () => Promise<Store>][] = [
  ["memory", async () => createMemoryStore()],
  [
    "lowdb",
    async () => {
      const directory = await mkdtemp(join(tmpdir(), "formwork-inventory-"));
      after(() => rm(directory, { recursive: true, force: true }));
      return createLowdbStore({ directory });
    },
  ],
];

/** Alice's form with {@link sessionFields} and `quantities` by session, plus S6/S7/F5 helpers. */
export async function withSessions(
  quantities: Record<string, number>,
  options: Partial<FormServiceOptions> = {},
) {
  const env = await withEngineForm(sectionOf(quantities), options, sessionFields);
  after(() => env.service.close());
  const submissionPath = (id: string) => `/api/restricted/form/${env.formId}/submission/${id}`;
  return {
    ...env,
    /** Replaces the inventory settings (F2). */
    async limit(next: Record<string, number>) {
      const [[section, body]] = Object.entries(sectionOf(next)) as [[string, unknown]];
      const saved = await env.call("POST", sectionPath(env.formId, section), {
        as: env.alice,
        body,
      });
      assert.equal(saved.status, 200, JSON.stringify(saved.body));
    },
    /** Each limited session's `remaining`, as F5 shows it. */
    async remaining(): Promise<Record<string, number>> {
      const { body } = await env.call("GET", `/api/form/${env.formId}`);
      const items = body.form_configuration.quantitylimitsettings.inventory as {
        option: string;
        remaining: number;
      }[];
      return Object.fromEntries(items.map((item) => [item.option, item.remaining]));
    },
    /** S2 of a session; the answer. */
    post: (session: string, draft?: boolean) => env.submit({ ...entry, session_8: session }, draft),
    /** S6 of some values, and of the draft flag when given. */
    update: (id: string, values: Record<string, string>, draft?: boolean) =>
      env.call("POST", submissionPath(id), {
        as: env.alice,
        body: {
          form_fields: Object.entries(values).map(([unique_system_name, submitted_value]) => ({
            unique_system_name,
            submitted_value,
          })),
          ...(draft === undefined ? {} : { is_draft_submission: draft }),
        },
      }),
    /** S7. */
    remove: (id: string) => env.call("DELETE", submissionPath(id), { as: env.alice }),
  };
}

function sectionOf(quantities: Record<string, number>) {
  const inventory = Object.entries(quantities).map(([option, quantity]) => ({
    unique_system_name: "session_8",
    option,
    quantity,
  }));
  return { quantitylimitsettings: { inventory } };
}

/** The id of an acknowledged S2 or S6 answer. */
export function ok(answer: { status: number; body: { id?: string } }): string {
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body.id ?? "";
}
