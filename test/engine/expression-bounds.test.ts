import assert from "node:assert/strict";
import { test } from "node:test";
import { LogicEngine } from "json-logic-engine";
import type { FormField } from "../../src/domain/forms/form-definition.ts";
import type { FormRules } from "../../src/domain/settings/compiled-rules.ts";
import { evaluate } from "../../src/domain/settings/form-rules.ts";
import { compileExpression, maxExpressionText } from "../../src/rules/json-logic.ts";

/**
 * The library as it comes, interpreted as the hosted page runs it, to compare the bounded
 * operators with (compiled, its `cat` writes `null` for a missing value; interpreted, "").
 */
const library = new LogicEngine(undefined, { maxDepth: 32 });

const big = "x".repeat(200_000);
/** `n` references to the value of `a`, made by `map` over a literal list. */
const copies = (n: number) => ({ map: [Array.from({ length: n }, () => 1), { var: "../../a" }] });

test("cat and in answer as the library's do within their bound", () => {
  const data = { a: "b", n: 3 };
  const expressions = [
    { cat: ["a", 1, null, ["b", null, ["c", 2]], { var: "a" }] },
    { cat: "alone" },
    { cat: [] },
    { cat: copies(3) },
    { in: ["b", "abc"] },
    { in: ["q", ["q", "r"]] },
    { in: [3, [1, 2, 3]] },
    { in: [["a", "b"], "a,b,c"] },
    { in: [copies(2), "b,b"] },
    { in: [null, "null"] },
    { in: ["abcd", "abc"] },
    { in: ["a", null] },
  ];
  for (const expression of expressions) {
    const expected = library.run(expression, data);
    assert.deepEqual(compileExpression(expression)(data), expected, JSON.stringify(expression));
  }
});

test("cat past its bound fails rather than building the text", () => {
  const repeated = { cat: Array.from({ length: 2000 }, () => ({ var: "a" })) };
  assert.equal(compileExpression(repeated)({ a: big }), undefined);
  assert.equal(compileExpression({ cat: [copies(15_000)] })({ a: big }), undefined);
  const fits = compileExpression({ cat: [{ var: "a" }, { var: "a" }] });
  const half = "y".repeat(maxExpressionText / 2);
  assert.equal(fits({ a: half }), half + half);
  assert.equal(fits({ a: `${half}y` }), undefined);
});

test("in never joins a list longer than the text it looks in", () => {
  const joined = compileExpression({ in: [copies(15_000), "xx"] });
  assert.equal(joined({ a: big }), false);
  assert.equal(compileExpression({ in: [copies(2), "b,b!"] })({ a: "b" }), true);
});

test("the calculated values of one submission hold at most the bound in all", () => {
  const fields = new Map<string, FormField>(
    ["a", "c1", "c2", "c3"].map((name) => [
      name,
      { unique_system_name: name, type: "textarea", label: name } as FormField,
    ]),
  );
  const copy = compileExpression({ var: "a" });
  const rules: FormRules = {
    conditions: [],
    calculations: [
      { name: "c1", run: copy },
      { name: "c2", run: copy },
      { name: "c3", run: compileExpression({ cat: ["z", 1] }) },
    ],
    inventory: [],
    cascades: new Map(),
    dynamic: new Map(),
  };
  const value = "v".repeat(maxExpressionText - 1);
  const { values } = evaluate(rules, fields, new Map([["a", value]]));
  assert.equal(values.get("c1"), value);
  assert.equal(values.get("c2"), "");
  assert.equal(values.get("c3"), "");
  const small = evaluate(rules, fields, new Map([["a", "v"]])).values;
  assert.deepEqual([small.get("c1"), small.get("c2"), small.get("c3")], ["v", "v", "z1"]);
});
