/**
 * One test of a conformance suite, for any test runner: a name, and a function that resolves
 * when the adapter keeps the contract and rejects (an `AssertionError`) when it does not.
 * Each case makes, and closes, what it uses; cases are independent and may run in any order.
 */
export interface ConformanceCase {
  /** What the case checks, as a test name. */
  name: string;
  /** Runs the case. */
  run(): Promise<void>;
}
