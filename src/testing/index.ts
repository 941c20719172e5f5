/**
 * Conformance suites that any adapter can run to prove it keeps a port's contract, published
 * as `formwork/testing`. Each suite is a list of runner-neutral cases (`{ name, run }`); no
 * test runner is imported here. `formwork/testing/node` registers them with `node:test`;
 * under vitest or jest, loop over the cases (see `examples/custom-store/README.md`).
 */
export {
  type BlobStoreConformanceOptions,
  blobStoreConformanceCases,
} from "./blob-store-conformance.ts";
export type { ConformanceCase } from "./conformance-case.ts";
export {
  type PaymentEventKind,
  type PaymentsConformanceOptions,
  paymentsConformanceCases,
  type Signing,
} from "./payments-conformance.ts";
export { type StoreConformanceOptions, storeConformanceCases } from "./store-conformance.ts";
