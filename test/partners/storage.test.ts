import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import type { AttachmentRecord } from "../../src/domain/records/submission-record.ts";
import type { BlobStore } from "../../src/ports/blob-store.ts";
import { queryAll } from "../../src/ports/query-all.ts";
import { formInput, uploadBytes } from "../helpers.ts";
import { customerBody, withPartner } from "./setup.ts";

const fileField = {
  unique_system_name: "cv_1",
  type: "file",
  label: "CV",
  max_files: 3,
  max_file_size: 1000,
};

/** A paying customer with 1500 bytes of storage and a form with a file field. */
async function withStorageQuota(wrap: (blobs: BlobStore) => BlobStore = (blobs) => blobs) {
  const directory = await mkdtemp(join(tmpdir(), "formwork-partner-files-"));
  after(() => rm(directory, { recursive: true, force: true }));
  const store = createMemoryStore();
  const clock = { now: new Date("2026-11-15T10:00:00.000Z") };
  const blobs = wrap(
    createFsBlobStore({
      directory,
      storageUrl: "http://localhost/storage",
      signingSecret: "test signing secret",
      now: () => clock.now,
    }),
  );
  // The whole quota may be unclaimed uploads: these tests are about the quota alone.
  const limits = { unclaimedUploadQuotaShare: 1 };
  const env = await withPartner({ store, blobs, now: () => clock.now, limits });
  const customerId = await env.addCustomer(customerBody("carla@example.com", { storage: 1500 }));
  const jwt = await env.login("carla@example.com");
  const form = await env.asCustomer(jwt, "POST", "/api/restricted/form", {
    body: formInput("Uploads", [fileField]),
  });
  const formId: string = form.body.id;
  const upload = (bytes: number) => uploadBytes(env.service, formId, "cv_1", bytes);
  const used = async () => {
    const counter = await store.get<{ id: string; counts: Record<string, number> }>(
      "customer_counters",
      customerId,
      "total_file_storage",
    );
    return counter?.record.counts.used ?? 0;
  };
  const unclaimed = async () => {
    const counter = await store.get<{ id: string; counts: Record<string, number> }>(
      "form_counters",
      formId,
      formId,
    );
    return counter?.record.counts.unclaimed_bytes ?? 0;
  };
  const records = () => queryAll<AttachmentRecord>(store, "attachments", formId);
  return { ...env, directory, store, clock, jwt, formId, upload, used, unclaimed, records };
}

describe("file storage quota of partner customers", () => {
  it("holds exactly the bytes stored and refuses the upload that would pass the quota", async () => {
    const env = await withStorageQuota();
    const first = await env.upload(800);
    assert.equal(first.status, 200);
    assert.equal(await env.used(), 800);
    const tooBig = await env.upload(800);
    assert.equal(tooBig.status, 403);
    assert.equal(tooBig.body.error, "quota_exceeded");
    assert.equal(await env.used(), 800, "a refused upload gives its reservation back");
    const fits = await env.upload(700);
    assert.equal(fits.status, 200);
    assert.equal(await env.used(), 1500);
    const full = await env.upload(1);
    assert.equal(full.status, 403);
    assert.equal(full.body.error, "quota_exceeded");
    const overField = await env.upload(1001);
    assert.equal(overField.status, 403, "with nothing left, the quota answers first");
  });

  it("gives storage back when a submission, a stray upload or the form is deleted", async () => {
    const env = await withStorageQuota();
    const kept = await env.upload(600);
    const stray = await env.upload(500);
    assert.equal(await env.used(), 1100);
    const submitted = await env.call("POST", `/api/form/${env.formId}/submission`, {
      body: { form_fields: [{ unique_system_name: "cv_1", submitted_value: kept.body.id }] },
    });
    assert.equal(submitted.status, 200);
    const deleted = await env.asCustomer(
      env.jwt,
      "DELETE",
      `/api/restricted/form/${env.formId}/submission/${submitted.body.id}`,
    );
    assert.equal(deleted.status, 200);
    assert.equal(await env.used(), 500);
    env.clock.now = new Date(env.clock.now.getTime() + 26 * 60 * 60 * 1000);
    assert.equal(await env.service.sweepAttachments(), 1);
    assert.equal(await env.used(), 0, `the sweep gave back ${stray.body.id}`);
    const jwt = await env.login("carla@example.com");
    assert.equal((await env.upload(900)).status, 200);
    assert.equal(await env.used(), 900);
    const remove = `/api/restricted/form/${env.formId}/?updateSettingsOnly=1&settingsSection=generalsettingsdelete`;
    assert.equal((await env.asCustomer(jwt, "POST", remove)).status, 200);
    assert.equal(await env.used(), 0);
  });

  it("lets concurrent uploads share what is left without passing the quota", async () => {
    const env = await withStorageQuota();
    const answers = await Promise.all(Array.from({ length: 6 }, () => env.upload(400)));
    const stored = answers.filter((answer) => answer.status === 200).length;
    assert.ok(stored >= 1 && stored <= 3, `${stored} stored`);
    for (const answer of answers) {
      if (answer.status !== 200) assert.equal(answer.body.error, "quota_exceeded");
    }
    assert.equal(await env.used(), stored * 400);
  });

  it("keeps an upload's hold as a record, which the sweep gives back when the upload never ends", async () => {
    let open: () => void = () => {};
    const opened = new Promise<void>((resolve) => {
      open = resolve;
    });
    // A blob store whose writes wait: the upload stays between its hold and its file.
    const env = await withStorageQuota(
      (blobs) =>
        new Proxy(blobs, {
          get: (target, name) =>
            name === "put"
              ? async (...args: Parameters<BlobStore["put"]>) => {
                  await opened;
                  return target.put(...args);
                }
              : Reflect.get(target, name),
        }),
    );
    const stuck = env.upload(700);
    while ((await env.used()) === 0) await new Promise((r) => setTimeout(r, 5));
    const [hold] = await env.records();
    assert.equal(hold?.uploading, true);
    // The field's 1000 bytes are held: the quota used is the bytes of the records.
    assert.equal(hold?.file_size, 1000);
    assert.equal(await env.used(), 1000);
    assert.equal(await env.unclaimed(), 1000);
    const claim = await env.call("POST", `/api/form/${env.formId}/submission`, {
      body: { form_fields: [{ unique_system_name: "cv_1", submitted_value: hold?.id }] },
    });
    assert.equal(claim.status, 400, "a file still uploading cannot be claimed");
    const link = `/api/restricted/form/${env.formId}/submissionattachment/${hold?.id}`;
    assert.equal((await env.asCustomer(env.jwt, "GET", link)).status, 404);
    env.clock.now = new Date(env.clock.now.getTime() + 26 * 60 * 60 * 1000);
    assert.equal(await env.service.sweepAttachments(), 1);
    assert.deepEqual(await env.records(), []);
    assert.equal(await env.used(), 0, "the sweep gave the hold back");
    assert.equal(await env.unclaimed(), 0);
    open();
    const late = await stuck;
    assert.equal(late.status, 409, JSON.stringify(late.body));
    assert.equal(await env.used(), 0, "an upload given up keeps nothing");
    assert.deepEqual(await readdir(join(env.directory, env.formId)).catch(() => []), []);
  });

  it("lets one of two S2s racing for a file claim it; the other stores nothing", async () => {
    const env = await withStorageQuota();
    const file = await env.upload(600);
    assert.equal(await env.unclaimed(), 600);
    const post = () =>
      env.call("POST", `/api/form/${env.formId}/submission`, {
        body: { form_fields: [{ unique_system_name: "cv_1", submitted_value: file.body.id }] },
      });
    const answers = await Promise.all([post(), post()]);
    const statuses = answers.map((answer) => answer.status).sort();
    assert.deepEqual(statuses, [200, 400], JSON.stringify(answers.map((a) => a.body)));
    const winner = answers.find((answer) => answer.status === 200)?.body.id;
    const [record] = await env.records();
    assert.equal(record?.submission_id, winner);
    const submissions = await queryAll(env.store, "submissions", env.formId);
    assert.deepEqual(
      submissions.map((submission) => submission.id),
      [winner],
    );
    assert.equal(await env.unclaimed(), 0);
    assert.equal(await env.used(), 600);
  });
});
