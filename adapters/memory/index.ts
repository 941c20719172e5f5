/**
 * In-memory adapters: the executable spec of each port, for unit tests, examples and
 * embedders who need no persistence.
 */
export { createMemoryBlobStore, type MemoryBlobStoreOptions } from "./blob-store.ts";
export { createMemoryStore, type MemoryStoreOptions } from "./store.ts";
