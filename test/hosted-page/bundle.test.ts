import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { describe, it } from "node:test";
import { bundleModule, bundlePath } from "../../scripts/bundle-client.ts";

describe("hosted page script bundle", () => {
  it("is current with its sources (npm run bundle:client rewrites it)", async () => {
    assert.equal(await readFile(bundlePath, "utf8"), await bundleModule());
  });
});
