import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, it } from "node:test";
import { RestError } from "@azure/storage-blob";
import { StoreUnavailableError } from "../../src/ports/index.ts";
import { httpStatusOf, isNetworkFailure, isNotFound } from "../../src/ports/kit.ts";

/** The error a real file-system call fails with for a path that does not exist. */
async function missingFile(): Promise<unknown> {
  try {
    await readFile(join(import.meta.dirname, "no such file"));
  } catch (error) {
    return error;
  }
  throw new Error("the file exists");
}

describe("isNotFound", () => {
  it("holds for ENOENT and for an HTTP 404 however the SDK carries it", async () => {
    const found = [
      await missingFile(),
      new RestError("gone", { statusCode: 404, code: "BlobNotFound" }),
      Object.assign(new Error("gone"), { code: 404, substatus: 0 }), // Cosmos DB
      Object.assign(new Error("gone"), { name: "NoSuchKey", $metadata: { httpStatusCode: 404 } }),
      Object.assign(new Error("gone"), { status: 404 }),
    ];
    for (const error of found) assert.equal(isNotFound(error), true, String(error));
  });

  it("fails for every other failure, and for what is no error at all", () => {
    const others = [
      Object.assign(new Error("denied"), { code: "EACCES" }),
      new RestError("busy", { statusCode: 503 }),
      Object.assign(new Error("conflict"), { code: 409 }),
      Object.assign(new Error("odd"), { code: "404" }),
      new Error("plain"),
      null,
      undefined,
      "ENOENT",
      404,
    ];
    for (const error of others) assert.equal(isNotFound(error), false, String(error));
  });
});

describe("httpStatusOf and isNetworkFailure", () => {
  it("read the status an SDK answered with, or tell a network failure", () => {
    assert.equal(httpStatusOf(new RestError("x", { statusCode: 429 })), 429);
    assert.equal(httpStatusOf(Object.assign(new Error("x"), { code: 412 })), 412);
    assert.equal(httpStatusOf(Object.assign(new Error("x"), { code: "ECONNREFUSED" })), undefined);
    assert.equal(httpStatusOf(Object.assign(new Error("x"), { code: 42 })), undefined);
    const refused = Object.assign(new Error("x"), { code: "ECONNREFUSED" });
    assert.equal(isNetworkFailure(refused), true);
    assert.equal(isNetworkFailure(Object.assign(new Error("x"), { name: "AbortError" })), true);
    assert.equal(isNetworkFailure(new RestError("x", { statusCode: 500 })), false);
    assert.equal(isNetworkFailure(new Error("x")), false);
  });
});

describe("StoreUnavailableError", () => {
  it("keeps a known wait in whole seconds, rounded up, and drops a meaningless one", () => {
    assert.equal(new StoreUnavailableError("x", { retryAfterSeconds: 0.001 }).retryAfterSeconds, 1);
    assert.equal(new StoreUnavailableError("x", { retryAfterSeconds: 30 }).retryAfterSeconds, 30);
    assert.equal(
      new StoreUnavailableError("x", { retryAfterSeconds: -1 }).retryAfterSeconds,
      undefined,
    );
    assert.equal(
      new StoreUnavailableError("x", { retryAfterSeconds: Number.NaN }).retryAfterSeconds,
      undefined,
    );
    const cause = new Error("disk full");
    const error = new StoreUnavailableError("lowdb store cannot write", { cause });
    assert.equal(error.cause, cause);
    assert.equal(error.name, "StoreUnavailableError");
  });
});
