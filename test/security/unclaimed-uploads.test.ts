import assert from "node:assert/strict";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { createMemoryStore } from "../../adapters/memory/index.ts";
import { ServiceError } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { formInput, uploadBytes } from "../helpers.ts";
import { customerBody, withPartner } from "../partners/setup.ts";
import { submit, upload, withFiles } from "../submissions/setup.ts";

const hour = 60 * 60 * 1000;

/** What the form's unclaimed uploads hold, as the counter in the store says. */
async function unclaimed(store: Store, formId: string): Promise<number> {
  const counter = await store.get<{ id: string; counts: Record<string, number> }>(
    "form_counters",
    formId,
    formId,
  );
  return counter?.record.counts.unclaimed_bytes ?? 0;
}

/** The files the fs blob store holds for a form. */
async function filesOf(directory: string, formId: string): Promise<string[]> {
  return readdir(join(directory, formId)).then(
    (names) => names.filter((name) => !name.endsWith(".json")),
    () => [],
  );
}

/** A partner customer with a 1 MB storage quota and a form taking files up to 1 MB. */
async function withCustomerForm() {
  const directory = await mkdtemp(join(tmpdir(), "formwork-unclaimed-"));
  after(() => rm(directory, { recursive: true, force: true }));
  const store = createMemoryStore();
  const clock = { now: new Date("2026-11-15T10:00:00.000Z") };
  const blobs = createFsBlobStore({
    directory,
    storageUrl: "http://localhost/storage",
    signingSecret: "test signing secret",
    now: () => clock.now,
  });
  const env = await withPartner({ store, blobs, now: () => clock.now });
  await env.addCustomer(customerBody("carla@example.com", { storage: 1_000_000 }));
  const jwt = await env.login("carla@example.com");
  const field = { unique_system_name: "cv_1", type: "file", label: "CV", max_file_size: 1_000_000 };
  const form = await env.asCustomer(jwt, "POST", "/api/restricted/form", {
    body: formInput("Uploads", [field]),
  });
  assert.equal(form.status, 200);
  const formId: string = form.body.id;
  const send = (bytes: number) => uploadBytes(env.service, formId, "cv_1", bytes);
  return { ...env, store, directory, formId, send };
}

describe("the cap on unclaimed upload bytes per form", () => {
  it("keeps two anonymous 450 kB uploads from failing the owner's 200 kB upload (1 MB quota)", async () => {
    const env = await withCustomerForm();
    const first = await env.send(450_000);
    assert.equal(first.status, 200);
    const second = await env.send(450_000);
    assert.equal(second.status, 413, JSON.stringify(second.body));
    assert.deepEqual(Object.keys(second.body).sort(), [
      "action_successful",
      "error",
      "id",
      "message",
    ]);
    assert.equal(second.body.error, "payload_too_large");
    assert.equal(second.body.id, "");
    assert.equal(second.body.action_successful, false);
    assert.match(second.body.message, /waiting for a submission/);
    assert.equal((await filesOf(env.directory, env.formId)).length, 1, "nothing stored");
    const real = await env.send(200_000);
    assert.equal(real.status, 200, JSON.stringify(real.body));
    const posted = await env.call("POST", `/api/form/${env.formId}/submission`, {
      body: { form_fields: [{ unique_system_name: "cv_1", submitted_value: real.body.id }] },
    });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    assert.equal(await unclaimed(env.store, env.formId), 450_000, "the claim released 200 kB");
  });

  it("is exact under concurrent uploads, and claiming or the sweep releases the bytes", async () => {
    const store = createMemoryStore();
    // Each upload reserves its largest size (300 bytes) before streaming: 3 fit in 1000. They
    // come from one address, here allowed the whole cap (the next describe bounds it).
    const limits = {
      unclaimedUploadBytes: 1000,
      uploadBytes: 300,
      unclaimedUploadBytesPerAddress: 1000,
    };
    const env = await withFiles({ store, limits });
    const file = "x".repeat(300);
    const answers = await Promise.all(
      Array.from({ length: 8 }, () => upload(env, { bytes: file })),
    );
    const stored = answers.filter((answer) => answer.status === 200);
    assert.equal(stored.length, 3, answers.map((answer) => answer.status).join(" "));
    for (const answer of answers) {
      if (answer.status !== 200) assert.equal(answer.body.error, "payload_too_large");
    }
    assert.equal(await unclaimed(store, env.formId), 900);
    assert.equal((await filesOf(env.directory, env.formId)).length, 3);
    assert.equal((await upload(env, { bytes: file })).status, 413);
    assert.equal((await upload(env, { bytes: "y".repeat(100) })).status, 200, "100 bytes fit");
    assert.equal(await unclaimed(store, env.formId), 1000);

    const posted = await submit(env, { name_1: "Ada", cv_9: stored[0]?.body.id });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    assert.equal(await unclaimed(store, env.formId), 700, "S2 released the claimed file");
    assert.equal((await upload(env, { bytes: file })).status, 200);

    env.tick(26 * hour);
    assert.equal(await env.service.sweepAttachments(), 4);
    assert.equal(await unclaimed(store, env.formId), 0, "the sweep released the rest");
    assert.equal((await upload(env, { bytes: file })).status, 200);
  });

  it("counts a file again when its submission could not be stored", async () => {
    const store = createMemoryStore();
    let failNextSubmission = false;
    const failing: Store = Object.create(store);
    // S2 writes its submission in a batch with the form's counter: fail that batch.
    failing.batch = (ops) => {
      if (ops.some((op) => op.collection === "submissions") && failNextSubmission) {
        failNextSubmission = false;
        return Promise.reject(new ServiceError("service_unavailable", "the store is down"));
      }
      return store.batch(ops);
    };
    const env = await withFiles({
      store: failing,
      limits: { unclaimedUploadBytes: 1000, uploadBytes: 500 },
    });
    const file = (await upload(env, { bytes: "x".repeat(300) })).body.id;
    failNextSubmission = true;
    const lost = await submit(env, { name_1: "Ada", cv_9: file });
    assert.equal(lost.status, 503, JSON.stringify(lost.body));
    assert.equal(await unclaimed(store, env.formId), 300, "released by the failed S2");
    const posted = await submit(env, { name_1: "Ada", cv_9: file });
    assert.equal(posted.status, 200, JSON.stringify(posted.body));
    assert.equal(await unclaimed(store, env.formId), 0);
  });
});
