import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { validate, version } from "uuid";
import { newId } from "../src/kernel/ids.ts";

describe("newId", () => {
  it("makes distinct UUIDv7 ids in creation order, past one pool of random bytes", () => {
    const ids = Array.from({ length: 2_000 }, () => newId());
    for (const id of ids) {
      assert.ok(validate(id), id);
      assert.equal(version(id), 7);
      assert.equal(id, id.toLowerCase());
    }
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual([...ids].sort(), ids);
  });
});
