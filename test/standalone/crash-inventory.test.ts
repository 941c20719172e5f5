/**
 * Crash-exact inventory (docs/design.md §11, §12) through the standalone server as a child
 * process: kill -9 during concurrent S2s, S6s and S7s on a form with limited options, three
 * times, with the inventory settings changed between two rounds. Then each inventory count
 * must equal the number of stored non-draft submissions that took it, and never pass its
 * quantity.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import type { Page } from "../../src/ports/store.ts";
import { adminSecret, call as answer } from "./crash-fixture.ts";
import { start, stop } from "./server-process.ts";

const sessions = ["am", "pm", "eve"] as const;
const formBody = {
  form_configuration: { settings: { form_name: "Sessions", form_type: "classicsingle" } },
  form_definition: {
    pages: [
      {
        fields: [
          { unique_system_name: "name_1", type: "text", label: "Name" },
          { unique_system_name: "session_8", type: "radio", label: "Session", options: sessions },
        ],
      },
    ],
  },
};

type Headers = Record<string, string>;

/** One call (crash-fixture.ts); `undefined` when the process died before it answered. */
function call(
  server: StandaloneServer,
  method: string,
  path: string,
  auth: Headers,
  body?: unknown,
) {
  return answer(server, method, path, auth, body).catch(() => undefined);
}

function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)] as T;
}

/** The inventory section with `quantities` by session. */
function inventoryOf(quantities: Record<string, number>) {
  return {
    inventory: Object.entries(quantities).map(([option, quantity]) => ({
      unique_system_name: "session_8",
      option,
      quantity,
    })),
  };
}

/** The stored record's fields this test reads (straight from the lowdb files). */
interface StoredSubmission {
  id: string;
  is_draft_submission: boolean;
  inventory_taken?: string[];
}

/** The quantities of the first round, and of the later ones (eve limited from then on). */
const firstQuantities: Record<string, number> = { am: 30, pm: 1000 };
const laterQuantities: Record<string, number> = { am: 30, pm: 1000, eve: 60 };

/** An account, its form, and the F2 path of the form's inventory settings. */
async function setUp(server: StandaloneServer) {
  const admin = { AdminSecret: adminSecret };
  const account = await call(server, "POST", "/api/admin/accounts", admin, {
    email: "owner@example.com",
  });
  const auth = { TokenId: account?.body.token_id, TokenSecret: account?.body.token_secret };
  const form = await call(server, "POST", "/api/restricted/form", auth, formBody);
  assert.equal(form?.status, 200, JSON.stringify(form?.body));
  const formId = form?.body.id as string;
  const section = "?updateSettingsOnly=1&settingsSection=quantitylimitsettings";
  return { auth, formId, settings: `/api/restricted/form/${formId}/${section}` };
}

/** What the clients saw over the rounds. */
interface Seen {
  /** Ids of acknowledged S2s (drafts or not). */
  known: string[];
  edits: number;
  deletes: number;
  serverErrors: unknown[];
}

/**
 * One round against `server`: 8 posters (a quarter drafts), 4 editors moving submissions
 * between sessions and clearing drafts, 2 deleters; kill -9 after 150 posts.
 */
async function round(server: StandaloneServer, formId: string, auth: Headers, seen: Seen) {
  const alive = () => server.child.exitCode === null && !server.child.signalCode;
  const send = async (method: string, path: string, headers: Headers, body?: unknown) => {
    const answer = await call(server, method, path, headers, body);
    if (answer && answer.status >= 500) seen.serverErrors.push(answer.body);
    return answer;
  };
  let posted = 0;
  let loaded: () => void = () => {};
  const busy = new Promise<void>((resolve) => {
    loaded = resolve;
  });
  const posters = Array.from({ length: 8 }, async () => {
    while (alive()) {
      const answer = await send(
        "POST",
        `/api/form/${formId}/submission`,
        {},
        {
          form_fields: [
            { unique_system_name: "name_1", submitted_value: `n${posted}` },
            { unique_system_name: "session_8", submitted_value: pick(sessions) },
          ],
          is_draft_submission: Math.random() < 0.25,
        },
      );
      if (!answer) return;
      if (answer.status === 200) seen.known.push(answer.body.id);
      if (++posted === 150) loaded();
    }
  });
  const path = () => `/api/restricted/form/${formId}/submission/${pick(seen.known)}`;
  const worker = (act: () => Promise<boolean | undefined>) => async () => {
    while (alive()) {
      if (seen.known.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      else if ((await act()) === undefined) return;
    }
  };
  const edit = async () => {
    const answer = await send("POST", path(), auth, {
      form_fields: [{ unique_system_name: "session_8", submitted_value: pick(sessions) }],
      ...(Math.random() < 0.5 ? { is_draft_submission: false } : {}),
    });
    if (answer?.status === 200) seen.edits++;
    return answer && true;
  };
  const remove = async () => {
    const answer = await send("DELETE", path(), auth);
    if (answer?.body?.form_submission_item_deleted) seen.deletes++;
    return answer && true;
  };
  const others = [
    ...Array.from({ length: 4 }, () => worker(edit)()),
    ...Array.from({ length: 2 }, () => worker(remove)()),
  ];
  await Promise.race([busy, Promise.all(posters)]);
  server.child.kill("SIGKILL");
  await Promise.all([...posters, ...others]);
}

/** Each limited session's `remaining`, as F5 shows it. */
async function remainingOf(server: StandaloneServer, formId: string) {
  const rendered = await call(server, "GET", `/api/form/${formId}`, {});
  const items = rendered?.body.form_configuration.quantitylimitsettings.inventory as {
    option: string;
    remaining: number;
  }[];
  return Object.fromEntries(items.map((item) => [item.option, item.remaining]));
}

/**
 * From the stopped server's files (neither is part of the HTTP interface): the form's
 * counts, and how many stored submissions took each inventory count.
 */
async function readFiles(dataDir: string, formId: string) {
  const store = createLowdbStore({ directory: join(dataDir, "records"), warn: () => {} });
  try {
    const taken = new Map<string, number>();
    let continuation: string | null = null;
    let stored = 0;
    do {
      const page: Page<StoredSubmission> = await store.query("submissions", formId, {
        limit: 500,
        continuation,
      });
      for (const { record } of page.items) {
        stored++;
        if (record.is_draft_submission) assert.deepEqual(record.inventory_taken, []);
        for (const name of record.inventory_taken ?? []) {
          taken.set(name, (taken.get(name) ?? 0) + 1);
        }
      }
      continuation = page.continuation;
    } while (continuation);
    const counter = await store.get<{ id: string; counts: Record<string, number> }>(
      "form_counters",
      formId,
      formId,
    );
    return { stored, taken, counts: counter?.record.counts ?? {} };
  } finally {
    await store.close();
  }
}

describe("inventory after kill -9 (standalone server)", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("keeps each inventory count equal to what the stored submissions took", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-crash-inventory-"));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, ADMIN_SECRET: adminSecret };
    let server = await start(env);
    const { auth, formId, settings } = await setUp(server);
    const seen: Seen = { known: [], edits: 0, deletes: 0, serverErrors: [] };
    for (let n = 0; n < 3; n++) {
      // eve chosen in the first round took nothing; from the second it is limited too.
      const quantities = n === 0 ? firstQuantities : laterQuantities;
      const saved = await call(server, "POST", settings, auth, inventoryOf(quantities));
      assert.equal(saved?.status, 200, JSON.stringify(saved?.body));
      await round(server, formId, auth, seen);
      server = await start(env);
    }
    let remaining: Record<string, number> = {};
    try {
      assert.deepEqual(seen.serverErrors, []);
      assert.ok(seen.edits > 0 && seen.deletes > 0, `${seen.edits} S6s, ${seen.deletes} S7s`);
      remaining = await remainingOf(server, formId);
    } finally {
      assert.equal(await stop(server.child), 0);
    }
    const { stored, taken, counts } = await readFiles(dataDir, formId);
    assert.ok(stored > 0);
    assert.equal(counts.submissions, stored);
    for (const session of sessions) {
      const name = `inventory:session_8:${session}`;
      assert.equal(counts[name] ?? 0, taken.get(name) ?? 0, `${name}: count vs records`);
      const quantity = laterQuantities[session] ?? 0;
      assert.ok((counts[name] ?? 0) <= quantity, `${name} passed its quantity`);
      assert.equal(remaining[session], quantity - (counts[name] ?? 0));
    }
    assert.ok((taken.get("inventory:session_8:am") ?? 0) > 0, "no am was taken");
  });
});
