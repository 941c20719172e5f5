import assert from "node:assert/strict";
import { readdir } from "node:fs/promises";
import { describe, it } from "node:test";
import { type FilesEnv, upload, withFiles } from "./setup.ts";

/** S3 with an `Idempotency-Key` (docs/design.md §6). */

const files = (env: FilesEnv) => readdir(`${env.directory}/${env.formId}`).catch(() => []);

describe("Idempotency-Key on S3", () => {
  it("answers a repeated upload with the first id and keeps one file", async () => {
    const env = await withFiles();
    const headers = { "Idempotency-Key": "upload-1" };
    const first = await upload(env, { bytes: "my cv" }, { headers });
    const again = await upload(env, { bytes: "my cv" }, { headers });
    assert.equal(first.status, 200);
    assert.equal(again.status, 200);
    assert.equal(again.headers.get("idempotent-replayed"), "true");
    assert.equal(again.body.id, first.body.id);
    assert.deepEqual(await files(env), [first.body.id]);
  });

  it("refuses the key with another file, or another file name", async () => {
    const env = await withFiles();
    const headers = { "Idempotency-Key": "upload-2" };
    assert.equal((await upload(env, { bytes: "my cv" }, { headers })).status, 200);
    for (const part of [{ bytes: "my other cv" }, { bytes: "my cv", filename: "other.txt" }]) {
      const other = await upload(env, part, { headers });
      assert.equal(other.status, 409);
      assert.equal(other.body.error, "idempotency_conflict");
    }
    assert.equal((await files(env)).length, 1);
  });

  it("keeps one file for the same key sent 10 times at once", async () => {
    const env = await withFiles();
    const headers = { "Idempotency-Key": "burst" };
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => upload(env, { bytes: "same file" }, { headers })),
    );
    for (const answer of answers) assert.equal(answer.status, 200);
    const ids = new Set(answers.map((answer) => answer.body.id));
    assert.equal(ids.size, 1);
    assert.deepEqual(await files(env), [...ids]);
  });

  it("refuses an invalid key with 400", async () => {
    const env = await withFiles();
    const answer = await upload(env, {}, { headers: { "Idempotency-Key": "x".repeat(256) } });
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, "validation_failed");
    assert.deepEqual(await files(env), []);
  });
});
