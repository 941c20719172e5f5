/**
 * S5 over lowdb segment files that are not loaded (docs/design.md §18, "Range reads"): the
 * page's records are answered from their lines' texts, unparsed where the text tells all S5
 * needs, and the answer, the continuation and the audit entry are those S5 gives from
 * records in memory.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createLowdbStore } from "../../adapters/lowdb/index.ts";
import { createFormService } from "../../src/index.ts";
import { formInput, request, type TestUser } from "../helpers.ts";

const temporary: string[] = [];
after(() => Promise.all(temporary.map((dir) => rm(dir, { recursive: true, force: true }))));

const fields = [
  { unique_system_name: "name_1", type: "text", label: "Name", required: false },
  { unique_system_name: "cv_2", type: "file", label: "CV", required: false },
];

function open(directory: string) {
  const store = createLowdbStore({ directory, segmentSize: 4, maxLoadedSegments: 1 });
  const service = createFormService({ store, sweepIntervalMs: 0 });
  return Object.assign(service, { store });
}

describe("S5 over lowdb segment files", () => {
  it("answers from the files' texts what it answers from records in memory", async () => {
    const directory = await mkdtemp(join(tmpdir(), "formwork-lowdb-s5-"));
    temporary.push(directory);
    let service = open(directory);
    const alice = (await service.admin.createAccount({ email: "alice@example.com" })) as TestUser;
    const created = await request(service, "POST", "/api/restricted/form", {
      as: alice,
      body: formInput("Jobs", fields),
    });
    const formId: string = created.body.id;
    const base = `/api/restricted/form/${formId}`;
    // Values a text alone cannot tell apart from what S5 must see: a bookkeeping key and
    // the file field's name, inside values, and odd characters.
    const values = ['say "history": yes', "cv_2", 'quote " back \\ ü 😀', "plain"];
    const ids: string[] = [];
    for (let n = 0; n < 14; n++) {
      const posted = await request(service, "POST", `/api/form/${formId}/submission`, {
        body: {
          form_fields: [{ unique_system_name: "name_1", submitted_value: `${values[n % 4]} ${n}` }],
          is_draft_submission: n === 5,
        },
      });
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      ids.push(posted.body.id);
    }
    // An edit keeps what it replaced (`history`), which S5 never shows.
    const edited = await request(service, "POST", `${base}/submission/${ids[5]}`, {
      as: alice,
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "Edited" }] },
    });
    assert.equal(edited.status, 200, JSON.stringify(edited.body));
    const pages = async () => {
      const seen: unknown[] = [];
      let token = "";
      do {
        const query = `?batchSize=5${token ? `&continuationToken=${token}` : ""}`;
        const page = await request(service, "GET", `${base}/submissions${query}`, { as: alice });
        assert.equal(page.status, 200, JSON.stringify(page.body));
        seen.push(page.body);
        token = page.body.continuation_token ?? "";
      } while (token);
      return seen;
    };
    const audit = async () => {
      const page = await request(service, "GET", `${base}/audit?batchSize=1000`, { as: alice });
      return (page.body.entries as { action: string; target_ids: string[] }[])
        .filter((entry) => entry.action === "submissions_listed")
        .map((entry) => entry.target_ids);
    };
    const inMemory = await pages();
    const listedInMemory = await audit();
    await service.close();
    // Reopened: every page reads segment files (at most one segment stays loaded).
    service = open(directory);

    // Read unparsed, every one: S2 writes the id first (the edit kept its place).
    const read = await service.store.query("submissions", formId, {
      orderBy: { field: "created_date_utc" },
    });
    const unparsed = read.items.filter(
      (item) => Object.getOwnPropertyDescriptor(item, "record")?.get !== undefined,
    );
    assert.equal(unparsed.length, 14);
    const fromFiles = await pages();
    assert.deepEqual(fromFiles, inMemory);
    const shown = fromFiles.flatMap((page) => (page as { results: { id: string }[] }).results);
    assert.deepEqual(
      shown.map((result) => result.id),
      ids,
    );
    assert.ok(shown.every((result) => !("history" in result)));
    // The audit entries of the pages from files (the newest first) name the same submissions.
    const listed = await audit();
    assert.deepEqual(listed.slice(0, listed.length - listedInMemory.length), listedInMemory);
    assert.equal(listed.length, 2 * listedInMemory.length);
    await service.close();
  });
});
