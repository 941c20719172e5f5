import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { answerJson, withJsonTexts, withLazyJsonArray } from "../src/kernel/json-texts.ts";

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

  it("writes a lazy field from its texts without building it, and builds it once when read", () => {
    let builds = 0;
    const build = () => {
      builds++;
      return records;
    };
    const answer = () => ({ results: [] as unknown[], n: 1 });
    const texts = records.map((record) => JSON.stringify(record));
    const lazy = withLazyJsonArray(answer(), "results", texts, build);
    assert.equal(answerJson(lazy), JSON.stringify({ results: records, n: 1 }));
    assert.equal(builds, 0);
    // Read: built once, then a plain field as any other.
    assert.deepEqual(Object.keys(lazy), ["results", "n"]);
    assert.deepEqual(lazy, { results: records, n: 1 });
    assert.deepEqual({ ...lazy }, { results: records, n: 1 });
    assert.equal(builds, 1);
    assert.equal(Object.getOwnPropertyDescriptor(lazy, "results")?.value, records);
    assert.equal(answerJson(lazy), JSON.stringify(lazy));
    // A text missing: written from the built items; a field set is what it holds.
    const partly = withLazyJsonArray(answer(), "results", [texts[0], undefined], build);
    assert.equal(answerJson(partly), JSON.stringify({ results: records, n: 1 }));
    const set = withLazyJsonArray(answer(), "results", texts, build);
    set.results = ["other"];
    assert.equal(answerJson(set), JSON.stringify({ results: ["other"], n: 1 }));
  });

  it("gives every lazy field of a name the one accessor, never functions of its own", () => {
    const one = withLazyJsonArray({ results: [] }, "results", [], () => []);
    const two = withLazyJsonArray({ results: [] }, "results", [], () => []);
    const accessor = (answer: object) => Object.getOwnPropertyDescriptor(answer, "results");
    assert.ok(accessor(one)?.get);
    assert.equal(accessor(one)?.get, accessor(two)?.get);
  });

  it("writes anything else exactly as JSON.stringify", () => {
    for (const value of [null, [1, 2], "text", 3, { a: [1] }, undefined]) {
      assert.equal(answerJson(value), JSON.stringify(value));
    }
  });
});
