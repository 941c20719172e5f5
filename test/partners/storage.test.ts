import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
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
async function withStorageQuota() {
  const directory = await mkdtemp(join(tmpdir(), "formwork-partner-files-"));
  after(() => rm(directory, { recursive: true, force: true }));
  const store = createMemoryStore();
  const clock = { now: new Date("2026-11-15T10:00:00.000Z") };
  const blobs = createFsBlobStore({
    directory,
    storageUrl: "http://localhost/storage",
    signingSecret: "test signing secret",
    now: () => clock.now,
  });
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
  return { ...env, store, clock, jwt, formId, upload, used };
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
});
