/**
 * Crash-exact counts (docs/design.md §12) through the standalone server as a child process:
 * kill -9 during concurrent S2s and S7s, three times, then the form's counter must equal its
 * stored submissions, and a partner customer's monthly quota counter the submissions made.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { adminHeaders, adminSecret, call, type Owned, partnerForm } from "./crash-fixture.ts";
import { start, stop } from "./server-process.ts";

const formBody = {
  form_configuration: { settings: { form_name: "Counts", form_type: "classicsingle" } },
  form_definition: {
    pages: [{ fields: [{ unique_system_name: "name_1", type: "text", label: "Name" }] }],
  },
};

/** A local account's form, and a partner customer's form with its customer's user id. */
async function setUp(server: StandaloneServer) {
  const account = await call(server, "POST", "/api/admin/accounts", adminHeaders, {
    email: "owner@example.com",
  });
  const auth = { TokenId: account.body.token_id, TokenSecret: account.body.token_secret };
  const form = await call(server, "POST", "/api/restricted/form", auth, formBody);
  assert.equal(form.status, 200, JSON.stringify(form.body));
  const local: Owned = { auth, formId: form.body.id, query: "" };
  const { owned: partnered, customerId } = await partnerForm(server, formBody, 1_000_000);
  return { local, partnered, customerId };
}

/** S2; the new id when acknowledged, `undefined` when refused or the process died first. */
async function submit(server: StandaloneServer, formId: string, n: number) {
  try {
    const answer = await call(
      server,
      "POST",
      `/api/form/${formId}/submission`,
      {},
      {
        form_fields: [{ unique_system_name: "name_1", submitted_value: `n${n}` }],
      },
    );
    return answer.status === 200 ? (answer.body.id as string) : undefined;
  } catch {
    return undefined;
  }
}

/** S7; `true` when acknowledged as deleted, `undefined` when the process died first. */
async function remove(server: StandaloneServer, owned: Owned, id: string) {
  try {
    const path = `/api/restricted/form/${owned.formId}/submission/${id}${owned.query}`;
    const answer = await call(server, "DELETE", path, owned.auth);
    return answer.status === 200 ? answer.body.form_submission_item_deleted === true : undefined;
  } catch {
    return undefined;
  }
}

/** Every submission S5 lists, page by page. */
async function listAll(server: StandaloneServer, owned: Owned): Promise<string[]> {
  const ids: string[] = [];
  let token: string | null = null;
  do {
    const next = token ? `&continuationToken=${encodeURIComponent(token)}` : "";
    const query = owned.query ? `${owned.query}&batchSize=1000` : "?batchSize=1000";
    const path = `/api/restricted/form/${owned.formId}/submissions${query}${next}`;
    const answer = await call(server, "GET", path, owned.auth);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    ids.push(...(answer.body.results as { id: string }[]).map((r) => r.id));
    token = answer.body.continuation_token;
  } while (token);
  return ids;
}

/** What the clients were told, per form. */
interface Told {
  acknowledged: Set<string>;
  /** Deletes acknowledged: these must be gone. */
  deleted: Set<string>;
  /** Deletes sent but not answered: these may be either way. */
  deleting: Set<string>;
}

const told = (): Told => ({ acknowledged: new Set(), deleted: new Set(), deleting: new Set() });

describe("counts after kill -9 (standalone server)", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("keep the form's counter equal to its submissions and the monthly quota to those made", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-crash-counts-"));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, ADMIN_SECRET: adminSecret };
    let server = await start(env);
    const { local, partnered, customerId } = await setUp(server);
    const forms = [
      { owned: local, told: told() },
      { owned: partnered, told: told() },
    ];
    let n = 0;
    for (let round = 0; round < 3; round++) {
      let inRound = 0;
      let loaded: () => void = () => {};
      const busy = new Promise<void>((resolve) => {
        loaded = resolve;
      });
      const running = server;
      const posters = Array.from({ length: 16 }, async (_, i) => {
        const form = forms[i % 2] as (typeof forms)[number];
        for (;;) {
          const id = await submit(running, form.owned.formId, n++);
          if (!id) return;
          form.told.acknowledged.add(id);
          if (++inRound === 150) loaded();
        }
      });
      // S7s on the local form, deleting acknowledged submissions as they come.
      const deleters = Array.from({ length: 4 }, async () => {
        const form = forms[0] as (typeof forms)[number];
        for (;;) {
          const id = [...form.told.acknowledged].find(
            (one) => !form.told.deleted.has(one) && !form.told.deleting.has(one),
          );
          if (!id) {
            await new Promise((resolve) => setTimeout(resolve, 5));
            if (running.child.exitCode !== null || running.child.signalCode) return;
            continue;
          }
          form.told.deleting.add(id);
          const deleted = await remove(running, form.owned, id);
          if (deleted === undefined) return;
          form.told.deleting.delete(id);
          if (deleted) form.told.deleted.add(id);
        }
      });
      await Promise.race([busy, Promise.all(posters)]);
      running.child.kill("SIGKILL");
      await Promise.all([...posters, ...deleters]);
      server = await start(env);
    }
    const stored = new Map<string, number>();
    try {
      for (const { owned, told } of forms) {
        const listed = await listAll(server, owned);
        const ids = new Set(listed);
        assert.equal(ids.size, listed.length, "a submission is listed twice");
        for (const id of told.deleted) assert.equal(ids.has(id), false, `${id} is back`);
        const missing = [...told.acknowledged].filter(
          (id) => !ids.has(id) && !told.deleted.has(id) && !told.deleting.has(id),
        );
        assert.deepEqual(missing, [], "acknowledged submissions are gone");
        assert.ok(told.acknowledged.size > 0);
        stored.set(owned.formId, listed.length);
      }
      assert.ok((forms[0] as (typeof forms)[number]).told.deleted.size > 0, "no S7 was made");
    } finally {
      assert.equal(await stop(server.child), 0);
    }
    // The counters are no part of the HTTP interface: read them from the stopped server's files.
    const store = createLowdbStore({ directory: join(dataDir, "records"), warn: () => {} });
    try {
      for (const { owned } of forms) {
        const counter = await store.get<{ id: string; counts: Record<string, number> }>(
          "form_counters",
          owned.formId,
          owned.formId,
        );
        assert.equal(counter?.record.counts.submissions, stored.get(owned.formId));
      }
      const month = new Date().toISOString().slice(0, 7);
      const quota = await store.get<{ id: string; counts: Record<string, number> }>(
        "customer_counters",
        customerId,
        `monthly_form_submissions:${month}`,
      );
      // No submission of the partner's form was deleted: every one made is stored.
      assert.equal(quota?.record.counts.used, stored.get(partnered.formId));
    } finally {
      await store.close();
    }
  });
});
