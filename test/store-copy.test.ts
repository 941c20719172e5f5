/**
 * `copyRecord` (src/ports/record-copy.ts), the copy the memory and lowdb stores hand to readers
 * in place of `structuredClone`: as deep and as faithful for JSON records.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { copyRecord } from "../src/ports/record-copy.ts";

describe("copyRecord", () => {
  it("copies every level, so that changing the copy leaves the record as it was", () => {
    const record = {
      id: "a",
      counts: { submissions: 2 },
      fields: [{ name: "x", values: ["1", null] as (string | null)[] }],
      flag: false,
      missing: undefined,
    };
    // Frozen as the memory store freezes what it holds: the copy must not be.
    for (const part of [
      record,
      record.counts,
      record.fields,
      record.fields[0],
      record.fields[0]?.values,
    ])
      Object.freeze(part);
    const copy = copyRecord(record);
    assert.deepStrictEqual(copy, structuredClone(record));
    copy.counts.submissions = 3;
    copy.fields[0]?.values.push("2");
    assert.equal(record.counts.submissions, 2);
    assert.deepEqual(record.fields[0]?.values, ["1", null]);
    assert.ok(Object.hasOwn(copy, "missing"));
  });

  it("keeps a field named __proto__ a field, as structuredClone does", () => {
    const record = JSON.parse('{"id":"a","__proto__":{"polluted":true}}');
    const copy = copyRecord(record);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.equal((copy as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(Object.getOwnPropertyDescriptor(copy, "__proto__")?.value, { polluted: true });
    assert.deepStrictEqual(copy, structuredClone(record));
  });

  it("copies what is not plain JSON with structuredClone", () => {
    const record = { id: "a", at: new Date(0), tags: new Set(["x"]) };
    const copy = copyRecord(record);
    assert.ok(copy.at instanceof Date && copy.at !== record.at);
    assert.equal(copy.at.getTime(), 0);
    assert.deepEqual(copy.tags, new Set(["x"]));
  });
});
