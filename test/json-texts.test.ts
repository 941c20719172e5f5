import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { answerJson, withJsonTexts } from "../src/kernel/json-texts.ts";

describe("answers written from the store's texts", () => {
  const records = [
    { id: "a", text: 'say "hi" ü 😀', n: [1e21, -0] },
    { id: "b", fields: { "10": 1, "2": 2 } },
  ];

  it("writes an answer with texts as JSON.stringify writes it without them", () => {
    const answer = () => ({
      form_definition: { x: 1 },
      results: records,
      skipped: undefined,
      n: 2,
    });
    const texts = records.map((record) => JSON.stringify(record));
    assert.equal(answerJson(withJsonTexts(answer(), { results: texts })), JSON.stringify(answer()));
    // A text missing for one item: that item is written from the record.
    const partly = withJsonTexts(answer(), { results: [texts[0], undefined] });
    assert.equal(answerJson(partly), JSON.stringify(answer()));
  });

  it("copies the noted texts rather than writing the items", () => {
    const answer = withJsonTexts({ results: records }, { results: ['{"id":"told"}', undefined] });
    assert.deepEqual(JSON.parse(answerJson(answer)), { results: [{ id: "told" }, records[1]] });
  });

  it("writes an array whose length no longer matches its texts as usual", () => {
    const answer = withJsonTexts({ results: [...records] }, { results: ['{"id":"told"}'] });
    assert.equal(answerJson(answer), JSON.stringify({ results: records }));
  });

  it("keeps the texts out of the answer's own fields", () => {
    const answer = withJsonTexts({ results: records }, { results: [undefined, undefined] });
    assert.deepEqual(Object.keys(answer), ["results"]);
    assert.deepEqual(answer, { results: records });
    assert.equal(JSON.stringify(answer), answerJson(answer));
  });

  it("writes anything else exactly as JSON.stringify", () => {
    for (const value of [null, [1, 2], "text", 3, { a: [1] }, undefined]) {
      assert.equal(answerJson(value), JSON.stringify(value));
    }
  });
});
