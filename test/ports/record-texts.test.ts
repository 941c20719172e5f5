import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { idOfSubmissionText } from "../../src/domain/records/submission-record.ts";
import { leadingId } from "../../src/ports/kit.ts";

describe("a record's id read from its JSON text", () => {
  it("reads an id first in the text, and nothing it cannot read exactly", () => {
    for (const object of [{ id: "abc", x: "\\" }, { id: "ü€ 😀" }, { id: "" }]) {
      assert.equal(leadingId(JSON.stringify(object)), object.id);
    }
    for (const object of [{ id: 'a"b' }, { id: "a\\b" }, { x: 1, id: "a" }, { id: 1 }]) {
      assert.equal(leadingId(JSON.stringify(object)), undefined, JSON.stringify(object));
    }
  });

  it("gives S5 the same ids, each a string of its own", () => {
    for (const object of [{ id: "abc", x: "\\" }, { id: "ü€ 😀" }, { id: "" }]) {
      assert.equal(idOfSubmissionText(JSON.stringify(object)), object.id);
    }
    assert.equal(idOfSubmissionText(JSON.stringify({ id: "a\\b" })), undefined);
  });
});
