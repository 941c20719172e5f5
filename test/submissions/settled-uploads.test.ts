/**
 * S2 claims a file without reading it again: one its own instance settled, on the etag the
 * settle wrote (src/domain/attachments/settled-uploads.ts), and one another instance settled,
 * on the token the form's counter lists it with (src/domain/attachments/waiting-uploads.ts).
 * A file claimed meanwhile through another instance or path is refused with the answer a
 * read gives, and the refused post leaves nothing behind. On the memory and lowdb stores,
 * and on the Cosmos stand-in, whose batch across partitions runs op by op and undoes what it
 * applied.
 */
import assert from "node:assert/strict";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { createFsBlobStore } from "../../adapters/fs/index.ts";
import { waitingUploadsKept } from "../../src/domain/attachments/waiting-uploads.ts";
import type { AttachmentRecord } from "../../src/domain/records/submission-record.ts";
import { createFormService, type FormService } from "../../src/index.ts";
import type { Store } from "../../src/ports/index.ts";
import { queryAll } from "../../src/ports/query-all.ts";
import { countingStore } from "../counting-store.ts";
import { formInput, request, type TestUser, uploadBytes } from "../helpers.ts";
import { storeKinds } from "../store-kinds.ts";

async function tempDir(prefix: string) {
  const directory = await mkdtemp(join(tmpdir(), prefix));
  after(() => rm(directory, { recursive: true, force: true }));
  return directory;
}

const stores = storeKinds("memory", "lowdb", "cosmos");

/** Two service instances over one store and one blob folder, and a form taking files. */
async function twoInstances(store: Store) {
  const calls: string[] = [];
  const blobs = createFsBlobStore({
    directory: await tempDir("formwork-settled-blobs-"),
    storageUrl: "http://localhost/storage",
    signingSecret: "test signing secret",
  });
  const options = {
    store: countingStore(store, calls),
    blobs,
    webhookPollMs: 0,
    sweepIntervalMs: 0,
  };
  const first = createFormService(options);
  const second = createFormService(options);
  after(() => Promise.all([first.close(), second.close()]));
  const alice = await first.admin.createAccount({ email: "alice@example.com" });
  const fields = [
    { unique_system_name: "name_1", type: "text", label: "Name" },
    { unique_system_name: "cv_2", type: "file", label: "CV", max_files: 2 },
  ];
  const form = await request(first, "POST", "/api/restricted/form", {
    as: alice as TestUser,
    body: formInput("Files", fields),
  });
  assert.equal(form.status, 200);
  const formId: string = form.body.id;
  const upload = async (service: FormService) => {
    const answer = await uploadBytes(service, formId, "cv_2", 10);
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    return answer.body.id as string;
  };
  const post = (service: FormService, files: string) =>
    request(service, "POST", `/api/form/${formId}/submission`, {
      body: {
        form_fields: [
          { unique_system_name: "name_1", submitted_value: "Ada" },
          { unique_system_name: "cv_2", submitted_value: files },
        ],
      },
    });
  const attachment = async (id: string) =>
    (await store.get<AttachmentRecord>("attachments", formId, id))?.record;
  const submissions = async () => (await queryAll(store, "submissions", formId)).length;
  const counter = async () =>
    (
      await store.get<{
        id: string;
        counts: Record<string, number>;
        waiting_uploads?: AttachmentRecord[];
      }>("form_counters", formId, formId)
    )?.record;
  const counted = async () => (await counter())?.counts;
  const waiting = async () => ((await counter())?.waiting_uploads ?? []).map(({ id }) => id);
  const owner = alice as TestUser;
  return {
    first,
    second,
    calls,
    upload,
    post,
    attachment,
    submissions,
    counted,
    waiting,
    owner,
    formId,
  };
}

describe("files an instance settled, claimed by its S2", () => {
  for (const [kind, create] of stores) {
    it(`are claimed unread, also when settled through another instance (${kind})`, {
      timeout: 60_000,
    }, async () => {
      const env = await twoInstances(await create());
      const [mine, theirs] = [await env.upload(env.first), await env.upload(env.second)];
      assert.deepEqual(await env.waiting(), [mine, theirs]);
      env.calls.length = 0;
      const posted = await env.post(env.first, `${mine}|${theirs}`);
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      // Neither file is read: one is held by this instance, the other listed by the counter.
      assert.ok(!env.calls.includes("get attachments"), env.calls.join());
      assert.equal(env.calls.filter((call) => call === "batch").length, 1);
      for (const id of [mine, theirs]) {
        const claimed = await env.attachment(id);
        assert.equal(claimed?.submission_id, posted.body.id);
        assert.equal(claimed?.claim_token, undefined);
      }
      assert.equal((await env.counted())?.unclaimed_bytes, 0);
      assert.deepEqual(await env.waiting(), []);
      // The submission holds its files as their claims left them.
      const read = await request(
        env.first,
        "GET",
        `/api/restricted/form/${env.formId}/submission/${posted.body.id}`,
        { as: env.owner },
      );
      assert.equal(read.status, 200, JSON.stringify(read.body));
      assert.deepEqual(
        read.body.attachment_details
          .map((detail: { attachment: { id: string } }) => detail.attachment.id)
          .sort(),
        [mine, theirs].sort(),
      );
      assert.ok(!JSON.stringify(read.body).includes("claim_token"));
    });

    it(`refuses a listed file that another path claimed, as a read does (${kind})`, {
      timeout: 60_000,
    }, async () => {
      const env = await twoInstances(await create());
      const file = await env.upload(env.second);
      // S6 claims it after reading it, and leaves the counter's list as it was.
      const draft = await env.post(env.first, "");
      assert.equal(draft.status, 200, JSON.stringify(draft.body));
      const edited = await request(
        env.first,
        "POST",
        `/api/restricted/form/${env.formId}/submission/${draft.body.id}`,
        {
          as: env.owner,
          body: { form_fields: [{ unique_system_name: "cv_2", submitted_value: file }] },
        },
      );
      assert.equal(edited.status, 200, JSON.stringify(edited.body));
      assert.deepEqual(await env.waiting(), [file]);
      const counts = await env.counted();
      const refused = await env.post(env.second, file);
      assert.equal(refused.status, 400);
      assert.deepEqual(refused.body.issues, notWaiting(file));
      assert.equal(await env.submissions(), 1);
      assert.deepEqual(await env.counted(), counts);
      assert.equal((await env.attachment(file))?.submission_id, draft.body.id);
    });

    it(`lists the newest uploads as waiting, and reads a file past them (${kind})`, {
      timeout: 60_000,
    }, async () => {
      const env = await twoInstances(await create());
      const files: string[] = [];
      for (let i = 0; i < waitingUploadsKept + 2; i++) files.push(await env.upload(env.second));
      assert.deepEqual(await env.waiting(), files.slice(2));
      env.calls.length = 0;
      const posted = await env.post(env.first, `${files[0]}|${files[9]}`);
      assert.equal(posted.status, 200, JSON.stringify(posted.body));
      // The oldest fell off the list and is read; the newest is claimed unread.
      assert.equal(env.calls.filter((call) => call === "get attachments").length, 1);
      assert.deepEqual(await env.waiting(), files.slice(2, 9));
    });

    it(`refuses a file claimed through another instance as a read does, keeping nothing (${kind})`, {
      timeout: 60_000,
    }, async () => {
      const env = await twoInstances(await create());
      const file = await env.upload(env.first);
      const taken = await env.post(env.second, file);
      assert.equal(taken.status, 200, JSON.stringify(taken.body));
      const counts = await env.counted();
      // The first instance still holds the file as it settled it: its claim fails on the etag.
      const refused = await env.post(env.first, file);
      const read = await env.post(env.second, file);
      assert.equal(refused.status, 400);
      assert.equal(read.status, 400);
      assert.deepEqual(withoutId(refused.body), withoutId(read.body));
      assert.deepEqual(refused.body.issues, notWaiting(file));
      assert.equal(await env.submissions(), 1);
      assert.deepEqual(await env.counted(), counts);
      assert.equal((await env.attachment(file))?.submission_id, taken.body.id);
      // Refused once, the file is no longer claimed unread.
      env.calls.length = 0;
      assert.equal((await env.post(env.first, file)).status, 400);
      assert.ok(env.calls.includes("get attachments"));
      assert.ok(!env.calls.includes("batch"));
    });
  }
});

/** The 400's issues for a file that is not waiting for a submission. */
function notWaiting(file: string) {
  const message = `${file} is not a file uploaded for this field and waiting for a submission`;
  return [{ path: "cv_2", message }];
}

/** An error envelope without the request's own id. */
function withoutId(body: Record<string, unknown>) {
  const { request_id: _, ...rest } = body;
  return rest;
}
