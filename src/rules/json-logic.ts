/**
 * JsonLogic expressions of the settings sections (docs/design.md §11), run by `json-logic-engine`,
 * the same way on the server and in the hosted page (this module is bundled into the page).
 *
 * Why `json-logic-engine` rather than `json-logic-js`: it is maintained (json-logic-js has had
 * no release since 2020), it is a proper ESM/CJS package that bundles for the browser without
 * shims, and its operators are a superset of json-logic-js's, so rules written for either run
 * here. We never `eval` an expression ourselves, nor parse one by hand.
 *
 * Why its interpreter and never its compiler (`build`): `build` generates JavaScript and runs
 * it through `eval`, which the page's Content-Security-Policy forbids, and the two do not
 * agree (`{"!=": [3, "abc"]}` is true compiled and fails interpreted; `/`, `<`, `cat` with
 * `null` differ too). One path on both sides is what keeps the page and S2 in agreement. The
 * engine's optimizer is off as well: it caches by expression object and switches itself off
 * after 500 misses in a row, so a busy server would otherwise change path mid-run.
 */
import { LogicEngine } from "json-logic-engine";

/** The values an expression sees: numbers for `number` fields, strings otherwise. */
export type LogicData = Record<string, string | number>;

/** A compiled expression: never throws; `undefined` when the expression failed. */
export type CompiledExpression = (data: LogicData) => unknown;

/**
 * The longest string an expression may build, in characters, and the most that all the
 * calculated values of one submission may hold together (form-rules.ts): a short expression
 * over a large submitted value (2,000 copies of it) must not build gigabytes.
 */
export const maxExpressionText = 64 * 1024;

// One engine for the process: methods are the library's own, never extended by input, but
// for the two that turn values into text, bounded (docs/design.md §11).
const engine = new LogicEngine(undefined, { maxDepth: 32, disableInterpretedOptimization: true });
engine.addMethod("cat", boundedCat, { deterministic: true, optimizeUnary: true });
engine.addMethod("in", boundedIn);

/**
 * The library's `cat` (`null` and `undefined` left out, an array joined with commas as
 * JavaScript does), measured before it is built.
 * @throws {RangeError} past {@link maxExpressionText}: the expression fails.
 */
function boundedCat(parts: unknown): string {
  if (!Array.isArray(parts)) return textOf(parts, maxExpressionText);
  const texts: string[] = [];
  let left = maxExpressionText;
  for (const part of parts) {
    if (part === null || part === undefined) continue;
    const text = textOf(part, left);
    texts.push(text);
    left -= text.length;
  }
  return texts.join("");
}

/**
 * The library's `in`: an item of a list, or text within a string. Text longer than the
 * string is never within it, so the item is made text only up to the string's length.
 */
function boundedIn([item, within]: unknown[]): boolean {
  if (typeof within !== "string") return ((within || []) as unknown[]).includes(item);
  try {
    return within.includes(textOf(item, within.length));
  } catch (error) {
    if (error instanceof RangeError) return false;
    throw error;
  }
}

/**
 * `String(value)`, given up as soon as it would pass `max` characters: an array's items
 * (of other arrays too) are measured before they are joined.
 * @throws {RangeError} past `max`.
 */
function textOf(value: unknown, max: number): string {
  let text: string;
  if (Array.isArray(value)) {
    const texts: string[] = [];
    let length = -1;
    for (const item of value) {
      length += 1;
      const part = item === null || item === undefined ? "" : textOf(item, max - length);
      texts.push(part);
      length += part.length;
    }
    text = texts.join(",");
  } else text = String(value);
  if (text.length > max) throw new RangeError(`builds text longer than ${max} characters`);
  return text;
}

/**
 * `expression` as a function of the values, interpreted on each call. Evaluation errors
 * (division by zero, a bad operand, an operator the library does not know) yield
 * `undefined`, so a stored section never makes a request fail.
 */
export function compileExpression(expression: unknown): CompiledExpression {
  return (data) => {
    try {
      return engine.run(expression, data);
    } catch {
      return undefined;
    }
  };
}

/**
 * Why `expression` is not JsonLogic (it uses an operator the library does not know), or
 * `null`; F2 asks this, never the page. An expression the library refuses for another reason (a division by a constant
 * 0) is accepted: it yields nothing when run, as any failing expression does.
 */
export function expressionProblem(expression: unknown): string | null {
  try {
    engine.build(expression);
    return null;
  } catch (error) {
    const { type, key } = (error ?? {}) as { type?: unknown; key?: unknown };
    if (type !== "Unknown Operator") return null;
    return typeof key === "string"
      ? `uses ${key}, which is not a JsonLogic operator`
      : "is not JsonLogic: an operation is an object of one key";
  }
}

/** JsonLogic truthiness, as the library decides it. */
export function truthy(value: unknown): boolean {
  return Boolean(engine.truthy(value));
}
