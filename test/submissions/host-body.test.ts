/**
 * S3 with the body passed as the host's own stream (`ConnectionInfo.body`), as the
 * standalone server passes Node's `IncomingMessage`: the upload reads that stream and never
 * `request.body`, refuses midway with the usual answers, and reads the rest of the host's
 * stream so that the answer can reach the client.
 */
import assert from "node:assert/strict";
import { once } from "node:events";
import { readdir } from "node:fs/promises";
import { Readable } from "node:stream";
import { describe, it } from "node:test";
import { conformingFetch } from "../helpers.ts";
import { download, type FilesEnv, withFiles } from "./setup.ts";

/** A multipart body holding `bytes` as the file part `cv_9`, with its content type. */
async function multipart(bytes: Uint8Array<ArrayBuffer> | string) {
  const form = new FormData();
  form.append("cv_9", new Blob([bytes], { type: "text/plain" }), "cv.txt");
  const encoded = new Response(form);
  const type = encoded.headers.get("content-type") ?? "";
  return { type, bytes: new Uint8Array(await encoded.arrayBuffer()) };
}

/** `bytes` in chunks of `size`, as a socket delivers them. */
function* chunksOf(bytes: Uint8Array, size = 16 * 1024) {
  for (let start = 0; start < bytes.length; start += size)
    yield bytes.subarray(start, start + size);
}

/** S3 with `request.body` holding `requestFile` and the host's body `hostBody`. */
async function uploadWithHostBody(
  env: FilesEnv,
  type: string,
  hostBody: AsyncIterable<Uint8Array>,
  requestFile = "the Request's own body",
) {
  const decoy = await multipart(requestFile);
  const url = `http://localhost/api/form/${env.formId}/submissionattachment`;
  // The decoy shares the boundary of the host's body, so that reading it would succeed.
  const boundary = type.split("boundary=")[1] ?? "";
  const decoyBytes = new TextDecoder()
    .decode(decoy.bytes)
    .replaceAll(decoy.type.split("boundary=")[1] ?? "", boundary);
  const request = new Request(url, {
    method: "POST",
    headers: { "content-type": type },
    body: decoyBytes,
  });
  const response = await conformingFetch(env.service)(request, { body: hostBody });
  return { status: response.status, body: await response.json() };
}

async function storedText(env: FilesEnv, attachmentId: string) {
  const link = await env.call(
    "GET",
    `/api/restricted/form/${env.formId}/submissionattachment/${attachmentId}`,
    { as: env.alice },
  );
  return new TextDecoder().decode((await download(env, link.body.id)).bytes);
}

async function blobNames(env: FilesEnv) {
  const names = await readdir(`${env.directory}/${env.formId}`).catch(() => []);
  return names.filter((name) => !name.startsWith("."));
}

describe("S3 reading the host's own body stream", () => {
  it("stores the host's Node stream and never reads request.body", async () => {
    const env = await withFiles();
    const body = await multipart("from the host's stream");
    const answer = await uploadWithHostBody(env, body.type, Readable.from(chunksOf(body.bytes)));
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(await storedText(env, answer.body.id), "from the host's stream");
  });

  it("takes any async iterable of bytes as the host's body", async () => {
    const env = await withFiles();
    const body = await multipart("from a generator");
    async function* generated() {
      yield* chunksOf(body.bytes, 7);
    }
    const answer = await uploadWithHostBody(env, body.type, generated());
    assert.equal(answer.status, 200, JSON.stringify(answer.body));
    assert.equal(await storedText(env, answer.body.id), "from a generator");
  });

  it("refuses a file past its size midway, stores nothing and reads the rest of the host's body", {
    timeout: 20_000,
  }, async () => {
    const env = await withFiles();
    // cv_9 takes at most 1000 bytes; the host's body goes on for 2 MiB.
    const body = await multipart(new Uint8Array(2 * 1024 * 1024).fill(120));
    const host = Readable.from(chunksOf(body.bytes));
    const ended = once(host, "end");
    const answer = await uploadWithHostBody(env, body.type, host);
    assert.equal(answer.status, 413);
    assert.equal(answer.body.error, "payload_too_large");
    await ended;
    assert.deepEqual(await blobNames(env), []);
    // The refused upload gave its hold back: the next one is taken.
    const small = await multipart("after the refusal");
    const next = await uploadWithHostBody(env, small.type, Readable.from(chunksOf(small.bytes)));
    assert.equal(next.status, 200, JSON.stringify(next.body));
    assert.equal((await blobNames(env)).length, 1);
  });

  it("answers 400 when the host's body stops short, and stores nothing", async () => {
    const env = await withFiles();
    const body = await multipart("cut short ".repeat(90));
    const host = new Readable({ read() {} });
    host.push(body.bytes.subarray(0, body.bytes.length - 400));
    setTimeout(() => host.destroy(new Error("the client went away")), 10);
    const answer = await uploadWithHostBody(env, body.type, host);
    assert.equal(answer.status, 400);
    assert.equal(answer.body.message, "The request body was cut short");
    assert.deepEqual(await blobNames(env), []);
  });
});
