import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { describe, it } from "node:test";
import { conformingFetch } from "../helpers.ts";
import { download, submit, upload, withFiles } from "./setup.ts";

const restricted = (formId: string) => `/api/restricted/form/${formId}`;

describe("S3 upload, S1 and S4 links, downloads", () => {
  it("uploads a file, attaches it and serves it through the signed links", async () => {
    const env = await withFiles();
    const uploaded = await upload(env, { bytes: "curriculum vitae", filename: "my cv.txt" });
    assert.equal(uploaded.status, 200);
    assert.equal(uploaded.body.message, "File upload succeeded");
    assert.equal(uploaded.body.action_successful, true);
    const attachmentId: string = uploaded.body.id;
    const posted = await submit(env, { name_1: "Ada", cv_9: attachmentId });
    assert.equal(posted.status, 200);

    const read = await env.call("GET", `${restricted(env.formId)}/submission/${posted.body.id}`, {
      as: env.alice,
    });
    assert.equal(read.status, 200);
    const [detail] = read.body.attachment_details;
    assert.equal(detail.attachment.id, attachmentId);
    assert.equal(detail.attachment.form_id, env.formId);
    assert.equal(detail.attachment.unsafe_original_filename, "my cv.txt");
    assert.equal(detail.attachment.file_size, 16);
    assert.equal(detail.attachment.submission_id, undefined);
    assert.match(detail.attachment_sas_uri, /^\?sv=[^&]+&se=[^&]+&sr=b&sp=r&sig=[^&]+$/);

    const link = await env.call(
      "GET",
      `${restricted(env.formId)}/submissionattachment/${attachmentId}`,
      { as: env.alice },
    );
    assert.equal(link.status, 200);
    assert.equal(link.body.message, "Temporary link to file");
    assert.ok(
      link.body.id.startsWith(`http://localhost/storage/${env.formId}/${attachmentId}?sv=`),
    );
    const file = await download(env, link.body.id);
    assert.equal(file.status, 200);
    assert.equal(new TextDecoder().decode(file.bytes), "curriculum vitae");
    assert.match(
      file.headers.get("content-disposition") ?? "",
      /^attachment; filename="my cv.txt"/,
    );
    assert.equal(file.headers.get("x-content-type-options"), "nosniff");

    const viaS1 = await download(
      env,
      `http://localhost/storage/${env.formId}/${attachmentId}${detail.attachment_sas_uri}`,
    );
    assert.equal(viaS1.status, 200);
  });

  it("refuses tampered, expired and re-scoped links with 403", async () => {
    const env = await withFiles();
    const one = (await upload(env, {})).body.id;
    const two = (await upload(env, {})).body.id;
    const link = (
      await env.call("GET", `${restricted(env.formId)}/submissionattachment/${one}`, {
        as: env.alice,
      })
    ).body.id as string;
    const sig = new URL(link).searchParams.get("sig") ?? "";
    const flipped = sig.startsWith("A") ? `B${sig.slice(1)}` : `A${sig.slice(1)}`;
    const tampered = link.replace(
      `sig=${encodeURIComponent(sig)}`,
      `sig=${encodeURIComponent(flipped)}`,
    );
    assert.notEqual(tampered, link);
    assert.equal((await download(env, tampered)).status, 403);
    assert.equal((await download(env, link.replace(one, two))).status, 403);
    assert.equal((await download(env, link.replace("sr=b", "sr=c"))).status, 403);
    assert.equal((await download(env, link.split("?")[0] ?? "")).status, 403);
    env.tick(16 * 60 * 1000);
    assert.equal((await download(env, link)).status, 403);
  });

  it("refuses bad uploads with a clear error and stores nothing", async () => {
    const env = await withFiles();
    const url = `http://localhost/api/form/${env.formId}/submissionattachment`;
    const json = await conformingFetch(env.service)(
      new Request(url, {
        method: "POST",
        body: "{}",
        headers: { "content-type": "application/json" },
      }),
    );
    assert.equal(json.status, 415);
    const empty = new FormData();
    empty.append("note", "no file here");
    const noFile = await conformingFetch(env.service)(
      new Request(url, { method: "POST", body: empty }),
    );
    assert.equal(noFile.status, 400);
    const unknown = await upload(env, { field: "nope_1" });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.issues[0].path, "nope_1");
    const notFile = await upload(env, { field: "name_1" });
    assert.equal(notFile.status, 400);
    const tooBig = await upload(env, { bytes: new Uint8Array(1001) });
    assert.equal(tooBig.status, 413);
    assert.equal(tooBig.body.error, "payload_too_large");
    const wrongType = await upload(env, { filename: "x.exe", type: "application/x-msdownload" });
    assert.equal(wrongType.status, 400);
    const image = await upload(env, { filename: "x.png", type: "image/png" });
    assert.equal(image.status, 200);
    const declared = await upload(env, {}, { headers: { "content-length": String(10 ** 9) } });
    assert.equal(declared.status, 413);
    const files = await readdir(`${env.directory}/${env.formId}`).catch(() => []);
    assert.equal(files.filter((name) => !name.includes(".")).length, 1, "only the image is kept");
  });

  it("lets only the owner and full reporters read submissions and files", async () => {
    const env = await withFiles();
    const posted = await submit(env, { name_1: "Ada" });
    const path = `${restricted(env.formId)}/submission/${posted.body.id}`;
    const stranger = await env.user("stranger@example.com");
    assert.equal((await env.call("GET", path, { as: stranger })).status, 404);
    const grant = `${restricted(env.formId)}/usersecurity?collaborator_email=sub@example.com&has_form_submission=1`;
    await env.call("POST", grant, { as: env.alice });
    const submitter = await env.user("sub@example.com");
    assert.equal((await env.call("GET", path, { as: submitter })).status, 403);
    assert.equal((await env.call("DELETE", path, { as: submitter })).status, 403);
    assert.equal((await env.call("GET", path)).status, 401);
    const other = await env.call("GET", `${restricted(env.formId)}/submission/${env.formId}`, {
      as: env.alice,
    });
    assert.equal(other.status, 404);
  });
});

describe("S6 update and S7 delete", () => {
  it("replaces given values, clears the draft flag and deletes dropped files", async () => {
    const env = await withFiles();
    const first = (await upload(env, { bytes: "one" })).body.id;
    const second = (await upload(env, { bytes: "two" })).body.id;
    const draft = await submit(env, { about_2: "hello", cv_9: first }, { draft: true });
    const path = `${restricted(env.formId)}/submission/${draft.body.id}`;
    const refused = await env.call("POST", path, {
      as: env.alice,
      body: { form_fields: [], is_draft_submission: false },
    });
    assert.equal(refused.status, 400, "name_1 is required once it is no longer a draft");
    env.tick();
    const updated = await env.call("POST", path, {
      as: env.alice,
      body: {
        form_fields: [
          { unique_system_name: "name_1", submitted_value: "Ada" },
          { unique_system_name: "cv_9", submitted_value: second },
        ],
        is_draft_submission: false,
      },
    });
    assert.equal(updated.status, 200);
    assert.deepEqual(updated.body, {
      message: "Form submission has been updated successfully",
      form_submission_item_updated: true,
    });
    const read = await env.call("GET", path, { as: env.alice });
    const stored = read.body.form_submission;
    assert.equal(stored.is_draft_submission, false);
    assert.equal(stored.modified_date_utc, "2026-11-01T10:00:01.000Z");
    assert.deepEqual(stored.form_fields, [
      { unique_system_name: "name_1", submitted_value: "Ada" },
      { unique_system_name: "about_2", submitted_value: "hello" },
      { unique_system_name: "cv_9", submitted_value: second },
    ]);
    const gone = await env.call("GET", `${restricted(env.formId)}/submissionattachment/${first}`, {
      as: env.alice,
    });
    assert.equal(gone.status, 404);
    const back = await env.call("POST", path, {
      as: env.alice,
      body: { is_draft_submission: true },
    });
    assert.equal(back.status, 400);
  });

  it("deletes a submission with its files", async () => {
    const env = await withFiles();
    const file = (await upload(env, {})).body.id;
    const posted = await submit(env, { name_1: "Ada", cv_9: file });
    const link = (
      await env.call("GET", `${restricted(env.formId)}/submissionattachment/${file}`, {
        as: env.alice,
      })
    ).body.id;
    const path = `${restricted(env.formId)}/submission/${posted.body.id}`;
    const deleted = await env.call("DELETE", path, { as: env.alice });
    assert.equal(deleted.status, 200);
    assert.deepEqual(deleted.body, {
      message: "Form submission has been deleted successfully",
      form_submission_item_deleted: true,
    });
    assert.equal((await env.call("GET", path, { as: env.alice })).status, 404);
    assert.equal((await download(env, link)).status, 404);
    assert.equal((await env.call("DELETE", path, { as: env.alice })).status, 404);
  });

  it("deleting the form deletes its submissions and files", async () => {
    const env = await withFiles();
    const file = (await upload(env, {})).body.id;
    await submit(env, { name_1: "Ada", cv_9: file });
    const deleted = await env.call(
      "POST",
      `${restricted(env.formId)}/?updateSettingsOnly=1&settingsSection=generalsettingsdelete`,
      { as: env.alice },
    );
    assert.equal(deleted.status, 200);
    assert.deepEqual(
      await readdir(env.directory).then((names) => names.filter((n) => n === env.formId)),
      [],
    );
  });
});

describe("attachments never claimed", () => {
  it("are removed once the grace period is over; claimed ones stay", async () => {
    const env = await withFiles();
    const kept = (await upload(env, {})).body.id;
    const dropped = (await upload(env, {})).body.id;
    await submit(env, { name_1: "Ada", cv_9: kept });
    assert.equal(await env.service.sweepAttachments(), 0);
    env.tick(59 * 60 * 1000);
    assert.equal(await env.service.sweepAttachments(), 0, "still within the hour's grace");
    env.tick(2 * 60 * 1000);
    assert.equal(await env.service.sweepAttachments(), 1);
    const link = (id: string) =>
      env.call("GET", `${restricted(env.formId)}/submissionattachment/${id}`, { as: env.alice });
    assert.equal((await link(dropped)).status, 404);
    assert.equal((await link(kept)).status, 200);
    const late = await submit(env, { name_1: "Bob", cv_9: dropped });
    assert.equal(late.status, 400);
  });
});
