/** Conformance suites that any adapter can run to prove it keeps a port's contract. */
export {
  type BlobStoreConformanceOptions,
  runBlobStoreConformance,
} from "./blob-store-conformance.ts";
export { runStoreConformance, type StoreConformanceOptions } from "./store-conformance.ts";
