/**
 * The conformance suites under `node:test`, published as `formwork/testing/node`. The suites
 * themselves (`formwork/testing`) import no test runner; this is the one module that does.
 */
import { describe, it } from "node:test";
import {
  type BlobStoreConformanceOptions,
  blobStoreConformanceCases,
} from "./blob-store-conformance.ts";
import type { ConformanceCase } from "./conformance-case.ts";
import {
  type PaymentsConformanceOptions,
  paymentsConformanceCases,
} from "./payments-conformance.ts";
import { type StoreConformanceOptions, storeConformanceCases } from "./store-conformance.ts";

/** Registers `cases` as one `node:test` suite titled `title`. Call it at a file's top level. */
export function runWithNodeTest(title: string, cases: readonly ConformanceCase[]): void {
  describe(title, () => {
    for (const test of cases) it(test.name, () => test.run());
  });
}

/** The Store conformance suite as `node:test` tests. Call it at a test file's top level. */
export function runStoreConformance(options: StoreConformanceOptions): void {
  runWithNodeTest(`Store conformance: ${options.name}`, storeConformanceCases(options));
}

/** The BlobStore conformance suite as `node:test` tests. Call it at a test file's top level. */
export function runBlobStoreConformance(options: BlobStoreConformanceOptions): void {
  runWithNodeTest(`BlobStore conformance: ${options.name}`, blobStoreConformanceCases(options));
}

/** The Payments conformance suite as `node:test` tests. Call it at a test file's top level. */
export function runPaymentsConformance(
  options: PaymentsConformanceOptions,
  /** Passed to `describe`: e.g. `{ skip: "STRIPE_SECRET_KEY is not set" }`. */
  suite: { skip?: string | false } = {},
): void {
  describe(`Payments conformance: ${options.name}`, suite, () => {
    for (const test of paymentsConformanceCases(options)) it(test.name, () => test.run());
  });
}
