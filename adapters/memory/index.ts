/**
 * In-memory adapters: the executable spec of each port, for unit tests, examples and
 * embedders who need no persistence.
 */
export { createMemoryStore, type MemoryStoreOptions } from "./store.ts";
