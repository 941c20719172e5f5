/**
 * JsonLogic expressions of the settings sections (docs/design.md §11), run by `json-logic-engine`.
 *
 * Why `json-logic-engine` rather than `json-logic-js`: it is maintained (json-logic-js has had
 * no release since 2020), it is a proper ESM/CJS package that bundles for the browser without
 * shims (the hosted page runs the same rules), and it compiles an expression once into a
 * function (`build`), which S2 keeps per form version (form-rules.ts) instead of walking the
 * JSON on every post. Its operators are a superset of json-logic-js's, so rules written for
 * either run here. We never `eval` an expression ourselves, nor parse one by hand.
 */
import { LogicEngine } from "json-logic-engine";

/** The values an expression sees: numbers for `number` fields, strings otherwise. */
export type LogicData = Record<string, string | number>;

/** A compiled expression: never throws; `undefined` when the expression failed. */
export type CompiledExpression = (data: LogicData) => unknown;

// One engine for the process: methods are the library's own, never extended by input.
const engine = new LogicEngine(undefined, { maxDepth: 32 });

/**
 * Compiles `expression` once. Evaluation errors (division by zero, a bad operand) yield
 * `undefined`; an expression that cannot even be compiled yields `undefined` every time, so
 * a stored section never makes a request fail.
 */
export function compileExpression(expression: unknown): CompiledExpression {
  let run: (data: LogicData) => unknown;
  try {
    run = engine.build(expression) as (data: LogicData) => unknown;
  } catch {
    return () => undefined;
  }
  return (data) => {
    try {
      return run(data);
    } catch {
      return undefined;
    }
  };
}

/**
 * Why `expression` is not JsonLogic (it uses an operator the library does not know), or
 * `null`. An expression the library refuses for another reason (a division by a constant
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
