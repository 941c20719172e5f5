/**
 * The example adapter of examples/custom-store: it passes the Store conformance suite, keeps
 * what it acknowledged across a reopen, and serves S2 and S5 through `createFormService`.
 */
import assert from "node:assert/strict";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createFormService } from "formwork";
import type { Store } from "formwork/ports";
import { runStoreConformance } from "formwork/testing/node";
import { createJsonFileStore } from "../../examples/custom-store/json-file-store.ts";
import { formInput, request, type TestUser } from "../helpers.ts";

const root = await mkdtemp(join(tmpdir(), "formwork-json-store-"));
after(() => rm(root, { recursive: true, force: true }));
const paths = new WeakMap<Store, string>();
let made = 0;

/** A store over a file of its own, remembered so that it can be reopened and inspected. */
function open(path = join(root, `store-${made++}.json`)): Store {
  const store = createJsonFileStore(path);
  paths.set(store, path);
  return store;
}

runStoreConformance({
  name: "JSON file (examples/custom-store)",
  create: () => open(),
  async reopen(store) {
    await store.close();
    return open(paths.get(store));
  },
  // What the file holds, read without the adapter.
  async inspect(store, collection, partition, id) {
    const text = await readFile(paths.get(store) as string, "utf8");
    const file = JSON.parse(text) as { partitions: [string, { record: { id: string } }[]][] };
    const key = JSON.stringify([collection, partition]);
    const entries = file.partitions.find(([k]) => k === key)?.[1] ?? [];
    return entries.find((entry) => entry.record.id === id)?.record;
  },
});

describe("examples/custom-store under the service", () => {
  it("serves S2 and S5, and keeps the submission across a restart", async () => {
    const path = join(root, "service.json");
    const first = createFormService({ store: open(path) });
    const owner = (await first.admin.createAccount({ email: "ada@example.com" })) as TestUser;
    const field = { unique_system_name: "name_1", type: "text", label: "Name" };
    const form = await request(first, "POST", "/api/restricted/form", {
      as: owner,
      body: formInput("Contact", [field]),
    });
    assert.equal(form.status, 200);
    const posted = await request(first, "POST", `/api/form/${form.body.id}/submission`, {
      body: { form_fields: [{ unique_system_name: "name_1", submitted_value: "Grace" }] },
    });
    assert.equal(posted.status, 200);
    await first.close();

    const second = createFormService({ store: open(path) });
    after(() => second.close());
    const listed = await request(
      second,
      "GET",
      `/api/restricted/form/${form.body.id}/submissions`,
      { as: owner },
    );
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.results.map((s: { id: string }) => s.id),
      [posted.body.id],
    );
    assert.equal(listed.body.results[0].form_fields[0].submitted_value, "Grace");
    // Written by rename: no temporary file is left beside the store's file.
    assert.deepEqual(
      (await readdir(root)).filter((name) => name.endsWith(".tmp")),
      [],
    );
  });
});
