/** Conformance suites that any adapter can run to prove it keeps a port's contract. */
export { runStoreConformance, type StoreConformanceOptions } from "./store-conformance.ts";
