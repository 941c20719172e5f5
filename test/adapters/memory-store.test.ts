import { createMemoryStore } from "../../adapters/memory/index.ts";
import { runStoreConformance } from "../../src/testing/index.ts";

runStoreConformance({ name: "memory", create: createMemoryStore });
