import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import {
  type AttachmentRecord,
  attachmentView,
  type SubmissionRecord,
} from "../../src/domain/records/submission-record.ts";
import { download, type FilesEnv, submit, upload, withFiles } from "./setup.ts";

const listPath = (env: FilesEnv, query = "") =>
  `/api/restricted/form/${env.formId}/submissions${query}`;

/** Posts `count` submissions one minute apart, from 10:00 on 2026-11-01. */
async function fill(env: FilesEnv, count: number) {
  const ids: string[] = [];
  for (let n = 0; n < count; n++) {
    ids.push(
      (await submit(env, { name_1: `person ${n}`, about_2: n % 2 ? "odd" : "even" })).body.id,
    );
    env.tick(60_000);
  }
  return ids;
}

describe("S5 list submissions", () => {
  it("pages through 250 submissions with continuation_token, in creation order", async () => {
    const env = await withFiles();
    const ids = await fill(env, 250);
    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const query: string = `?batchSize=100${token ? `&continuationToken=${encodeURIComponent(token)}` : ""}`;
      const { status, body } = await env.call("GET", listPath(env, query), { as: env.alice });
      assert.equal(status, 200);
      seen.push(...body.results.map((r: { id: string }) => r.id));
      token = body.continuation_token;
      pages++;
    } while (token);
    assert.equal(pages, 3);
    assert.deepEqual(seen, ids);
  });

  it("keeps a date window, inclusive, in UNIX milliseconds, and the default batch of 100", async () => {
    const env = await withFiles();
    const ids = await fill(env, 120);
    const start = Date.parse("2026-11-01T10:00:00.000Z");
    const window = `?dateFrom=${start + 10 * 60_000}&dateTo=${start + 19 * 60_000}`;
    const { body } = await env.call("GET", listPath(env, window), { as: env.alice });
    assert.deepEqual(
      body.results.map((r: { id: string }) => r.id),
      ids.slice(10, 20),
    );
    assert.equal(body.continuation_token, null);
    const all = await env.call("GET", listPath(env), { as: env.alice });
    assert.equal(all.body.results.length, 100);
    assert.equal(typeof all.body.continuation_token, "string");
    const snake = await env.call(
      "GET",
      listPath(
        env,
        `?date_from=${start + 10 * 60_000}&date_to=${start + 19 * 60_000}&batch_size=5`,
      ),
      { as: env.alice },
    );
    assert.deepEqual(
      snake.body.results.map((r: { id: string }) => r.id),
      ids.slice(10, 15),
    );
  });

  it("answers the definition, attachments, roles and container link", async () => {
    const env = await withFiles();
    const file = (await upload(env, { bytes: "abc" })).body.id;
    await submit(env, { name_1: "Ada", cv_9: file });
    const { body } = await env.call("GET", listPath(env, "?includeFormDefinition=1"), {
      as: env.alice,
    });
    assert.equal(body.form_definition.pages[0].fields.length, 9);
    assert.deepEqual(body.results[0].search_words, ["ada"]);
    assert.equal(body.attachments.length, 1);
    assert.equal(body.attachments[0].id, file);
    assert.deepEqual(body.granted_form_roles, [
      "has_account_management",
      "has_form_editor",
      "has_form_submission",
      "has_offline_form_submission",
      "has_reporting_full",
    ]);
    assert.match(body.container_sas_uri, /^\?sv=[^&]+&se=[^&]+&sr=c&sp=r&sig=[^&]+$/);
    const viaContainer = await download(
      env,
      `http://localhost/storage/${env.formId}/${file}${body.container_sas_uri}`,
    );
    assert.equal(viaContainer.status, 200);
    const without = await env.call("GET", listPath(env), { as: env.alice });
    assert.equal(without.body.form_definition, undefined);
  });

  it("lists the attachments each submission holds after S6 swaps a file, and those of records stored before they were kept", async () => {
    const store = createMemoryStore();
    const env = await withFiles({ store });
    const first = (await upload(env, { bytes: "abc" })).body.id;
    const posted = await submit(env, { name_1: "Ada", cv_9: first });
    env.tick();
    const second = (await upload(env, { bytes: "defg" })).body.id;
    const path = `/api/restricted/form/${env.formId}/submission/${posted.body.id}`;
    const body = { form_fields: [{ unique_system_name: "cv_9", submitted_value: second }] };
    assert.equal((await env.call("POST", path, { as: env.alice, body })).status, 200);
    const listed = await env.call("GET", listPath(env), { as: env.alice });
    const read = await env.call("GET", path, { as: env.alice });
    const shown = read.body.attachment_details.map((d: { attachment: unknown }) => d.attachment);
    assert.deepEqual(listed.body.attachments, shown);
    assert.deepEqual(
      listed.body.attachments.map((a: { id: string; file_size: number }) => [a.id, a.file_size]),
      [[second, 4]],
    );
    assert.equal(listed.body.attachments[0].modified_date_utc, env.clock.now.toISOString());
    // Kept on the submission exactly as the claim left the attachment's own record.
    const record = await store.get<AttachmentRecord>("attachments", env.formId, second);
    assert.ok(record);
    assert.deepEqual(listed.body.attachments, [attachmentView(record.record)]);
    // A record stored before the attachments were kept on it: S5 reads them.
    const stored = await store.get<SubmissionRecord>("submissions", env.formId, posted.body.id);
    assert.ok(stored?.record.attachments_held);
    const { attachments_held: _, ...older } = stored.record;
    await store.replace("submissions", env.formId, older);
    const again = await env.call("GET", listPath(env), { as: env.alice });
    assert.deepEqual(again.body.attachments, listed.body.attachments);
  });

  it("filters by search words", async () => {
    const env = await withFiles();
    await fill(env, 6);
    const { body } = await env.call("GET", listPath(env, "?search=ODD%20person"), {
      as: env.alice,
    });
    assert.equal(body.results.length, 3);
  });

  it("refuses bad query values with 400", async () => {
    const env = await withFiles();
    for (const query of [
      "?batchSize=0",
      "?batchSize=1001",
      "?batchSize=ten",
      "?dateFrom=yesterday",
      "?dateFrom=20&dateTo=10",
      "?includeFormDefinition=yes",
      "?continuationToken=forged",
    ]) {
      const { status, body } = await env.call("GET", listPath(env, query), { as: env.alice });
      assert.equal(status, 400, query);
      assert.equal(body.error, "validation_failed", query);
    }
  });

  it("shows a holder of has_reporting_full their roles; refuses others", async () => {
    const env = await withFiles();
    const grant = (email: string, flag: string) =>
      env.call(
        "POST",
        `/api/restricted/form/${env.formId}/usersecurity?collaborator_email=${email}&${flag}=1`,
        { as: env.alice },
      );
    await grant("rep@example.com", "has_reporting_full");
    await grant("ed@example.com", "has_form_editor");
    const reporter = await env.user("rep@example.com");
    const editor = await env.user("ed@example.com");
    const ok = await env.call("GET", listPath(env), { as: reporter });
    assert.equal(ok.status, 200);
    assert.deepEqual(ok.body.granted_form_roles, ["has_reporting_full"]);
    assert.equal((await env.call("GET", listPath(env), { as: editor })).status, 403);
  });
});
