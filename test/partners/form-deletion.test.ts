import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { test } from "node:test";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { collections } from "../../src/domain/records/collections.ts";
import { createFormService } from "../../src/index.ts";
import type { BatchOp, Store } from "../../src/ports/store.ts";
import { store as blobStore, tempDir } from "../adapters/fs-blob-fixture.ts";
import { crashingStore } from "../crashing-store.ts";
import { formInput, uploadBytes } from "../helpers.ts";
import { customerBody, tokenSecret, withPartner } from "./setup.ts";

/** `inner`, until, once armed, a batch that deletes a form record lands: then the process "dies". */
function crashAfterFormDelete(inner: Store) {
  return crashingStore(
    inner,
    (name, args) =>
      name === "batch" &&
      (args[0] as BatchOp[]).some(
        (op) => op.op === "delete" && op.collection === collections.forms,
      ),
  );
}

const fileField = { unique_system_name: "cv_1", type: "file", label: "CV", max_file_size: 1000 };

test("a crash right after F3's batch leaves the owner's quotas equal to what is stored, and the sweep finishes the deletion", async () => {
  const directory = await tempDir();
  const inner = createMemoryStore();
  const crashing = crashAfterFormDelete(inner);
  const clock = { now: new Date("2026-11-15T10:00:00.000Z") };
  const now = () => clock.now;
  const blobs = await blobStore({ directory, now });
  const limits = { unclaimedUploadQuotaShare: 1 };
  const env = await withPartner({ store: crashing.store, blobs, now, limits, onError: () => {} });
  const customerId = await env.addCustomer(customerBody("carla@example.com", { storage: 1500 }));
  const jwt = await env.login("carla@example.com");
  const created = await env.asCustomer(jwt, "POST", "/api/restricted/form", {
    body: formInput("Uploads", [fileField]),
  });
  const formId: string = created.body.id;
  const kept = await uploadBytes(env.service, formId, "cv_1", 300);
  const posted = await env.asCustomer(jwt, "POST", `/api/form/${formId}/submission`, {
    body: { form_fields: [{ unique_system_name: "cv_1", submitted_value: kept.body.id }] },
  });
  assert.equal(posted.status, 200, JSON.stringify(posted.body));
  assert.equal((await uploadBytes(env.service, formId, "cv_1", 200)).status, 200);
  const granted = await env.asCustomer(
    jwt,
    "POST",
    `/api/restricted/form/${formId}/usersecurity?has_form_submission=0&has_reporting_full=0&has_form_editor=0&has_account_management=1&has_offline_form_submission=0&collaborator_email=ann@example.com`,
  );
  assert.equal(granted.status, 200, JSON.stringify(granted.body));

  const used = async (quota: string) => {
    type Counter = { id: string; counts: Record<string, number> };
    const counter = await inner.get<Counter>(collections.customerCounters, customerId, quota);
    return counter?.record.counts.used ?? 0;
  };
  const quotas = async () => ({
    forms: await used("total_forms"),
    storage: await used("total_file_storage"),
    admins: await used("total_admin_collaborators"),
  });
  const count = async (collection: string) => (await inner.query(collection, formId)).items.length;
  assert.deepEqual(await quotas(), { forms: 1, storage: 500, admins: 1 });

  crashing.arm();
  await env.asCustomer(
    jwt,
    "POST",
    `/api/restricted/form/${formId}/?updateSettingsOnly=1&settingsSection=generalsettingsdelete`,
  );
  // The crash came before any partition was deleted: the form is gone, its quotas given back.
  assert.equal(await inner.get(collections.forms, formId, formId), null);
  assert.deepEqual(await quotas(), { forms: 0, storage: 0, admins: 0 });
  assert.equal(await count(collections.submissions), 1);
  assert.equal(await count(collections.attachments), 2);

  // A restarted service over what the crash left.
  const later = (ms: number) => () => new Date(clock.now.getTime() + ms);
  const restarted = (ms: number) =>
    createFormService({
      store: inner,
      blobs,
      now: later(ms),
      sweepIntervalMs: 0,
      partners: { tokenSecret },
    });
  // A note this recent may belong to an F3 still at work: left alone.
  await restarted(10_000).sweepAttachments();
  assert.equal(await count(collections.submissions), 1);
  await restarted(120_000).sweepAttachments();
  assert.equal(await count(collections.submissions), 0);
  assert.equal(await count(collections.attachments), 0);
  assert.equal(await count(collections.formUsers), 0);
  assert.equal((await inner.query(collections.serviceState, "form-deletions")).items.length, 0);
  assert.ok(!(await readdir(directory)).includes(formId), "the form's files are deleted");
  assert.deepEqual(await quotas(), { forms: 0, storage: 0, admins: 0 });
});
