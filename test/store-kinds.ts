import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after } from "node:test";
import { createCosmosStore } from "../adapters/cosmos/index.ts";
import { createLowdbStore } from "../adapters/lowdb/index.ts";
import { createMemoryStore } from "../adapters/memory/index.ts";
import type { Store } from "../src/ports/index.ts";
import { startCosmosEmulator } from "./emulators/cosmos.ts";

/** The stores a test may run over: real ones, each opened fresh. */
export type StoreKind = "memory" | "lowdb" | "cosmos";

const names: Record<StoreKind, string> = {
  memory: "memory",
  lowdb: "lowdb",
  cosmos: "the Cosmos stand-in",
};

/**
 * A fresh store of `kind`: lowdb in a temporary folder removed after the test, Cosmos DB on
 * the stand-in (started once per test file).
 */
export async function openStore(kind: StoreKind): Promise<Store> {
  if (kind === "memory") return createMemoryStore({ freezeWrites: true });
  if (kind === "lowdb") {
    const directory = await mkdtemp(join(tmpdir(), "formwork-store-"));
    after(() => rm(directory, { recursive: true, force: true }));
    return createLowdbStore({ directory });
  }
  const cosmos = await startCosmosEmulator();
  return createCosmosStore({
    client: cosmos.client(),
    databaseId: "formwork",
    createIfMissing: true,
  });
}

/** `[name, open]` for each of `kinds`, for a test to run once per store. */
export function storeKinds(...kinds: StoreKind[]): [string, () => Promise<Store>][] {
  return kinds.map((kind) => [names[kind], () => openStore(kind)]);
}
