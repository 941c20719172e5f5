/**
 * An erasure by respondent cut by kill -9 (docs/design.md §6): the standalone server is killed
 * while it deletes a respondent's 200 submissions, restarted, and its sweep takes the job up
 * once the job's lease has run out; then nothing of the respondent remains and the form's
 * counter equals its submissions.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import type { StandaloneServer } from "../../bench/standalone-process.ts";
import { recordsOf, storeText } from "../submissions/respondent-setup.ts";
import { adminHeaders, adminSecret, call } from "./crash-fixture.ts";
import { start, stop } from "./server-process.ts";

const formBody = {
  form_configuration: { settings: { form_name: "Newsletter", form_type: "classicsingle" } },
  form_definition: {
    pages: [
      {
        fields: [
          { unique_system_name: "name_1", type: "text", label: "Name" },
          { unique_system_name: "email_2", type: "email", label: "E-mail" },
        ],
      },
    ],
  },
};

const respondent = 200;
const others = 10;

/** How many submissions S5 lists on the form. */
async function stored(server: StandaloneServer, auth: Record<string, string>, formId: string) {
  const answer = await call(
    server,
    "GET",
    `/api/restricted/form/${formId}/submissions?batchSize=1000`,
    auth,
  );
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return (answer.body.results as unknown[]).length;
}

describe("an erasure cut by kill -9 (standalone server)", () => {
  const dirs: string[] = [];
  after(async () => {
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  it("is finished by the restarted server's sweep, with exact counts", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "formwork-crash-erasure-"));
    dirs.push(dataDir);
    const env = { DATA_DIR: dataDir, ADMIN_SECRET: adminSecret };
    let server = await start(env);
    const account = await call(server, "POST", "/api/admin/accounts", adminHeaders, {
      email: "owner@example.com",
    });
    const auth = { TokenId: account.body.token_id, TokenSecret: account.body.token_secret };
    const form = await call(server, "POST", "/api/restricted/form", auth, formBody);
    assert.equal(form.status, 200, JSON.stringify(form.body));
    const formId = form.body.id as string;
    const post = (n: number, email: string) =>
      call(
        server,
        "POST",
        `/api/form/${formId}/submission`,
        {},
        {
          form_fields: [
            { unique_system_name: "name_1", submitted_value: `n${n}` },
            { unique_system_name: "email_2", submitted_value: email },
          ],
        },
      );
    const addresses = [
      ...Array.from({ length: respondent }, () => "Ada@Example.com"),
      ...Array.from({ length: others }, () => "bob@example.com"),
    ];
    for (let n = 0; n < addresses.length; n += 10) {
      const posts = addresses.slice(n, n + 10).map((email, i) => post(n + i, email));
      for (const answer of await Promise.all(posts)) assert.equal(answer.status, 200);
    }

    // Killed once the erasure has deleted some, and before it has deleted all.
    const erasing = call(server, "POST", "/api/restricted/respondents/erase", auth, {
      email: "ada@example.com",
    }).catch(() => null);
    let left = respondent + others;
    while (left > respondent + others - 20) left = await stored(server, auth, formId);
    server.child.kill("SIGKILL");
    assert.equal(await erasing, null, "the erasure finished before the kill");
    assert.ok(left > others, `only ${left} were left at the kill`);

    server = await start(env);
    try {
      // The job's lease (30 s from its last page) runs out, then the sweep takes it up.
      const deadline = Date.now() + 90_000;
      left = await stored(server, auth, formId);
      while (left > others && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 500));
        left = await stored(server, auth, formId);
      }
      assert.equal(left, others);
      // The job is deleted last: wait for it.
      await new Promise((resolve) => setTimeout(resolve, 500));
    } finally {
      assert.equal(await stop(server.child), 0);
    }
    const store = createLowdbStore({ directory: join(dataDir, "records"), warn: () => {} });
    try {
      const counter = await store.get<{ id: string; counts: Record<string, number> }>(
        "form_counters",
        formId,
        formId,
      );
      assert.equal(counter?.record.counts.submissions, others);
      assert.equal((await recordsOf(store, "respondent_index")).length, others);
      const jobs = (await recordsOf(store, "service_state")).filter(
        ({ partition }) => partition === "erasures",
      );
      assert.deepEqual(jobs, []);
      assert.doesNotMatch(await storeText(store), /ada@example\.com/i);
    } finally {
      await store.close();
    }
  });
});
